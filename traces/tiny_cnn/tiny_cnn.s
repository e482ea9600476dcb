; tiny_cnn: a five-operation int8 CNN for Ethos-U65-256, in ethosu-sim assembler syntax (isa/assembler.h).
;
;   input 1x16x16x3 -> CONV 3x3 SAME, 8 ch, ReLU -> MAXPOOL 2x2/2 -> DEPTHWISE 3x3 SAME
;                   -> ADD(pool, depthwise) -> FULLY_CONNECTED 512 -> 10
;
; Laid out the way Vela 3.10 emits a stream: per operation IFM, OFM, kernel, weights/scales, activation, block
; config and SHRAM layout, then BLOCKDEP and the NPU_OP; registers are sticky, so a later operation only
; writes the values that change (Vela's redundant-write suppression). Nothing is DMA'd: weights and scale/bias
; streams are read in place from region 0, feature maps live in region 1 (arena). gen_data.py replays this file
; and fails if any value disagrees with the data it generates (offsets, lengths, zero points, scales, SHRAM).
;
; Region 1 (arena) map:  0x000 input 16x16x3      0x300 conv out 16x16x8, later depthwise out 8x8x8
;                        0xB00 pool out 8x8x8, overwritten in place by the ADD   0x500 logits (10 bytes)
; Region 0 (flash) map:  per op [scale/bias stream: 10 B per channel, padded to 16][compressed weights]

NPU_SET_PARALLEL_MODE parallel_mode=SINGLE_CORE                 ; U65: ncores - 1, once at the start

; ---- op 1: CONV_2D 3x3 stride 1 SAME, 3 -> 8 channels, ReLU ---------------------------------------------------
; IFM: the 16x16x3 input, NHWC, one tile (tile heights/width = the map; BASE1..3 unused)
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0x0
NPU_SET_IFM_BASE1 addr=0x0
NPU_SET_IFM_BASE2 addr=0x0
NPU_SET_IFM_BASE3 addr=0x0
NPU_SET_IFM_HEIGHT0_M1 height_m1=15
NPU_SET_IFM_HEIGHT1_M1 height_m1=15
NPU_SET_IFM_WIDTH0_M1 width_m1=15
NPU_SET_IFM_DEPTH_M1 depth_m1=2
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_IFM_STRIDE_Y stride=48                                   ; W * C bytes
NPU_SET_IFM_STRIDE_X stride=3                                    ; C bytes
NPU_SET_IFM_ZERO_POINT zero_point=-7
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=OPA_OPB_16 round_mode=DBL
NPU_SET_IFM_UPSCALE mode=NONE
; SAME padding for a 3x3 kernel: one row/column on every side (the IFM extent is implied, spec 03 3.1)
NPU_SET_IFM_PAD_TOP pad=1
NPU_SET_IFM_PAD_LEFT pad=1
NPU_SET_IFM_PAD_BOTTOM pad=1
NPU_SET_IFM_PAD_RIGHT pad=1
; OFM: 16x16x8 at 0x300
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x300
NPU_SET_OFM_BASE1 addr=0x0
NPU_SET_OFM_BASE2 addr=0x0
NPU_SET_OFM_BASE3 addr=0x0
NPU_SET_OFM_HEIGHT0_M1 height_m1=15
NPU_SET_OFM_HEIGHT1_M1 height_m1=15
NPU_SET_OFM_WIDTH0_M1 width_m1=15
NPU_SET_OFM_HEIGHT_M1 height_m1=15
NPU_SET_OFM_WIDTH_M1 width_m1=15
NPU_SET_OFM_DEPTH_M1 depth_m1=7
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_OFM_STRIDE_Y stride=128
NPU_SET_OFM_STRIDE_X stride=8
NPU_SET_OFM_ZERO_POINT zero_point=-110
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=PER_CHANNEL round_mode=DBL
; kernel 3x3 stride 1; IFM depth <= 8 so Vela picks part-kernel-first weight order
NPU_SET_KERNEL_HEIGHT_M1 height_m1=2
NPU_SET_KERNEL_WIDTH_M1 width_m1=2
NPU_SET_KERNEL_STRIDE stride_x_lsb=0 stride_y_lsb=0 weight_order=PART_KERNEL_FIRST dilation_x=NONE dilation_y=NONE decomposition=D8X8 stride_x_msb=0 stride_y_msb=0
; weights encoded for OFM block depth 8, part-kernel-first; 8 scale/bias records
NPU_SET_WEIGHT_REGION region=0
NPU_SET_WEIGHT_BASE addr=0x50
NPU_SET_WEIGHT_LENGTH length=352
NPU_SET_SCALE_REGION region=0
NPU_SET_SCALE_BASE addr=0x0
NPU_SET_SCALE_LENGTH length=80
; fused ReLU: clamp at quantise(0.0) = the OFM zero point
NPU_SET_ACTIVATION activation_function=RELU activation_clip_range=OFM_PRECISION
NPU_SET_ACTIVATION_MIN clip_boundary=-110
NPU_SET_ACTIVATION_MAX clip_boundary=127
; one 16x16x8 OFM block covers the map. SHRAM: IFM block 18x18x8 = 3 KiB, double-buffered, 8-bank granule
; -> banks 2..9 (IB_END 10); accumulators 16*16*8*4 B = 8 KiB x2 -> 16 banks below the reserved top 2 (AB_START 30)
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=15
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=15
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=7
NPU_SET_IFM_IB_END ib_end=10
NPU_SET_AB_START ab_start=30
NPU_SET_ACC_FORMAT acc_format=I32
NPU_SET_BLOCKDEP blockdep=0                                      ; first operation
NPU_OP_CONV

; ---- op 2: MAX_POOL_2D 2x2 stride 2 -> 8x8x8 -------------------------------------------------------------------
; IFM = conv output; same quantisation in and out, so the OFM zero point and precision stay as they are.
; Per-channel scale mode without a scale stream: max pooling is passed through unscaled (spec 03 4.1).
NPU_SET_IFM_BASE0 addr=0x300
NPU_SET_IFM_DEPTH_M1 depth_m1=7
NPU_SET_IFM_STRIDE_Y stride=128
NPU_SET_IFM_STRIDE_X stride=8
NPU_SET_IFM_ZERO_POINT zero_point=-110
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_OFM_BASE0 addr=0xb00
NPU_SET_OFM_HEIGHT0_M1 height_m1=7
NPU_SET_OFM_HEIGHT1_M1 height_m1=7
NPU_SET_OFM_WIDTH0_M1 width_m1=7
NPU_SET_OFM_HEIGHT_M1 height_m1=7
NPU_SET_OFM_WIDTH_M1 width_m1=7
NPU_SET_OFM_STRIDE_Y stride=64
NPU_SET_KERNEL_HEIGHT_M1 height_m1=1
NPU_SET_KERNEL_WIDTH_M1 width_m1=1
NPU_SET_KERNEL_STRIDE stride_x_lsb=1 stride_y_lsb=1 weight_order=DEPTH_FIRST dilation_x=NONE dilation_y=NONE decomposition=D8X8 stride_x_msb=0 stride_y_msb=0
; no fused activation: the int8 limits
NPU_SET_ACTIVATION_MIN clip_boundary=-128
; 8x8x8 block: IFM block 16x16x8 = 2 KiB x2 -> 8 banks (IB_END 10 again); accumulators 2 KiB x2 -> 16 banks (AB_START 30)
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=7
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=7
; BLOCKDEP stays 0: the single block of the pool needs the whole conv output
NPU_OP_POOL pooling_mode=MAX

; ---- op 3: DEPTHWISE_CONV_2D 3x3 stride 1 SAME, 8 channels, no activation --------------------------------------
; IFM = pool output; OFM over the dead conv output at 0x300
NPU_SET_IFM_BASE0 addr=0xb00
NPU_SET_IFM_HEIGHT0_M1 height_m1=7
NPU_SET_IFM_HEIGHT1_M1 height_m1=7
NPU_SET_IFM_WIDTH0_M1 width_m1=7
NPU_SET_IFM_STRIDE_Y stride=64
NPU_SET_IFM_PAD_TOP pad=1
NPU_SET_IFM_PAD_LEFT pad=1
NPU_SET_IFM_PAD_BOTTOM pad=1
NPU_SET_IFM_PAD_RIGHT pad=1
NPU_SET_OFM_BASE0 addr=0x300
NPU_SET_OFM_ZERO_POINT zero_point=6
NPU_SET_KERNEL_HEIGHT_M1 height_m1=2
NPU_SET_KERNEL_WIDTH_M1 width_m1=2
NPU_SET_KERNEL_STRIDE stride_x_lsb=0 stride_y_lsb=0 weight_order=DEPTH_FIRST dilation_x=NONE dilation_y=NONE decomposition=D8X8 stride_x_msb=0 stride_y_msb=0
; depthwise weight order (one filter per channel), OFM block depth 8
NPU_SET_WEIGHT_BASE addr=0x200
NPU_SET_WEIGHT_LENGTH length=64
NPU_SET_SCALE_BASE addr=0x1b0
; block 8x8x8 unchanged; IFM block 10x10x8 < 1 KiB -> still IB_END 10 / AB_START 30
NPU_OP_DEPTHWISE

; ---- op 4: ADD(pool output, depthwise output) -> in place over the pool output ---------------------------------
; TFLite ADD with different input scales: OPA_32 mode scales operand A (the IFM, the smaller scale) by
; min_s * 2^20 / (2 max_s); operand B is implicitly shifted left by 19; OFM_SCALE = 2 max_s / (out_s * 2^20),
; global (spec 03 8.1). Vela emits the scales first.
NPU_SET_OPA_SCALE shift=12 scale=1185136139
NPU_SET_OPB_SCALE scale=0
NPU_SET_OFM_SCALE shift=50 scale=1760989248
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=OPA_32 round_mode=DBL
NPU_SET_OFM_BASE0 addr=0xb00
NPU_SET_OFM_ZERO_POINT zero_point=-45
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=GLOBAL round_mode=DBL
; elementwise SHRAM: IFM 8x8x8 = 512 B x2 -> banks 2..9, IFM2 from bank 10; no accumulators (IB_END = AB_START
; = the LUT/reserved boundary 46)
NPU_SET_IFM_IB_END ib_end=46
NPU_SET_AB_START ab_start=46
NPU_SET_IFM2_IB_START ib_start=10
; IFM2 = depthwise output at 0x300
NPU_SET_IFM2_REGION region=1
NPU_SET_IFM2_BASE0 addr=0x300
NPU_SET_IFM2_BASE1 addr=0x0
NPU_SET_IFM2_BASE2 addr=0x0
NPU_SET_IFM2_BASE3 addr=0x0
NPU_SET_IFM2_HEIGHT0_M1 height_m1=7
NPU_SET_IFM2_HEIGHT1_M1 height_m1=7
NPU_SET_IFM2_WIDTH0_M1 width_m1=7
NPU_SET_IFM2_STRIDE_C stride=1
NPU_SET_IFM2_STRIDE_Y stride=64
NPU_SET_IFM2_STRIDE_X stride=8
NPU_SET_IFM2_ZERO_POINT zero_point=6
NPU_SET_IFM2_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC
NPU_SET_IFM2_BROADCAST broadcast_h=DISABLE broadcast_w=DISABLE broadcast_c=DISABLE operand_order=ORDER_B broadcast_constant=DISABLE
NPU_OP_ELEMENTWISE elementwise_mode=ADD

; ---- op 5: FULLY_CONNECTED 512 -> 10, as Vela lowers it: a 1x1 convolution on the flattened 1x1x512 map ------
; the ADD output (NHWC 8x8x8 is already the flattened order) read as 1x1x512: strides of a 1x1 map
NPU_SET_IFM_HEIGHT0_M1 height_m1=0
NPU_SET_IFM_HEIGHT1_M1 height_m1=0
NPU_SET_IFM_WIDTH0_M1 width_m1=0
NPU_SET_IFM_DEPTH_M1 depth_m1=511
NPU_SET_IFM_STRIDE_Y stride=512
NPU_SET_IFM_STRIDE_X stride=512
NPU_SET_IFM_ZERO_POINT zero_point=-45
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=OPA_OPB_16 round_mode=DBL
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
; OFM: the 10 logits at 0x500
NPU_SET_OFM_BASE0 addr=0x500
NPU_SET_OFM_HEIGHT0_M1 height_m1=0
NPU_SET_OFM_HEIGHT1_M1 height_m1=0
NPU_SET_OFM_WIDTH0_M1 width_m1=0
NPU_SET_OFM_HEIGHT_M1 height_m1=0
NPU_SET_OFM_WIDTH_M1 width_m1=0
NPU_SET_OFM_DEPTH_M1 depth_m1=9
NPU_SET_OFM_STRIDE_Y stride=10
NPU_SET_OFM_STRIDE_X stride=10
NPU_SET_OFM_ZERO_POINT zero_point=4
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=PER_CHANNEL round_mode=DBL
; 1x1 kernel; the stride/order word (depth-first, stride 1) is unchanged from op 3
NPU_SET_KERNEL_HEIGHT_M1 height_m1=0
NPU_SET_KERNEL_WIDTH_M1 width_m1=0
; depth-first weights (IFM blocks of 32 channels), OFM block depth 16; per-tensor FC scale repeated per channel
NPU_SET_WEIGHT_BASE addr=0x2b0
NPU_SET_WEIGHT_LENGTH length=7040
NPU_SET_SCALE_BASE addr=0x240
NPU_SET_SCALE_LENGTH length=112
; Vela's FC block: 2x2 x (OFM depth rounded up to 8). IFM block 2x2x32 -> 8 banks (IB_END 10);
; accumulators 2*2*16*4 B x2 -> 16 banks (AB_START 30)
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=1
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=1
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
NPU_SET_IFM_IB_END ib_end=10
NPU_SET_AB_START ab_start=30
NPU_OP_CONV

NPU_OP_STOP mask=0xffff
