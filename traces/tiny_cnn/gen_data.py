#!/usr/bin/python3
"""Data for the tiny_cnn sample job: region 0 (weights + scale/bias), the input, the expected output, manifest.json.

    /usr/bin/python3 gen_data.py --asm tiny_cnn.s --out DIR [--cmdstream DIR/cmdstream.bin]

The network (int8, TFLite-style quantisation):
    input 1x16x16x3
    -> CONV_2D 3x3 s1 SAME, 8 channels, per-channel weights, ReLU      (op 1)
    -> MAX_POOL_2D 2x2 s2                                              (op 2)
    -> DEPTHWISE_CONV_2D 3x3 s1 SAME, multiplier 1                     (op 3)
    -> ADD(pool output, depthwise output): a residual                  (op 4)
    -> FULLY_CONNECTED 512 -> 10 on the flattened 8x8x8 map            (op 5)

The expected output comes from a numpy model of TFLite's integer kernels (SaturatingRoundingDoublingHighMul +
RoundingDivideByPOT), not from the simulator. The command stream is hand-written in tiny_cnn.s; every register
value it programs for an operation is checked here against what this script computes (geometry, addresses,
zero points, scales, weight/scale lengths, block config and SHRAM layout), so the two files cannot drift apart.
The weight encoder's output is decoded again by an independent decoder and compared. Any disagreement exits
non-zero. Spec references are to the programmer's model in ../shared/spec (03 data semantics, 04 weight codec, 05 SHRAM).
"""
import argparse
import hashlib
import json
import math
import os
import re
import sys
from collections import Counter

import numpy as np

SEED = 20240611

# ----------------------------------------------------------------------------------------------------------------
# Quantisation of the tensors. Fixed constants: tiny_cnn.s hard-codes the values derived from them.
# Scales are float32 like a .tflite file stores them; derived multipliers are computed in double.
IN_SCALE, IN_ZP = np.float32(0.0235), -7
CONV_SCALE, CONV_ZP = np.float32(0.0653172), -110   # ReLU output: zero point near the bottom of the range
DW_SCALE, DW_ZP = np.float32(0.1183557), 6          # larger than CONV_SCALE: the ADD scales IFM (operand A)
ADD_SCALE, ADD_ZP = np.float32(0.1443319), -45
FC_SCALE, FC_ZP = np.float32(1.0371), 4
FC_W_SCALE = np.float32(0.0041)                 # FULLY_CONNECTED weights are per-tensor

# Region 1 (arena) offsets. The arena is reused as a planner would: the conv output is dead after the pool, so the
# depthwise output takes its place; the ADD writes in place over its first operand, as Vela lets elementwise
# ops do.
A_INPUT, A_CONV, A_POOL, A_DW, A_ADD, A_FC = 0x000, 0x300, 0xB00, 0x300, 0xB00, 0x500
ARENA_SIZE = 0xD00

# Hardware constants (spec 04 section 3, spec 05 sections 1 and 3) for Ethos-U65-256.
IFM_UB = OFM_UB = 8
SHRAM_BANKS, RESERVED_END_BANKS = 48, 2


def fail(msg):
    sys.exit("gen_data.py: " + msg)


# ----------------------------------------------------------------------------------------------------------------
# Scaling helpers.

def quantise_scale(real):
    """real = M * 2^-s with M an unsigned 31-bit-significand integer (spec 03 section 4.3)."""
    mant, exp = math.frexp(real)
    m = int(math.floor(abs(mant) * (1 << 31) + 0.5)) * (1 if mant >= 0 else -1)  # round half away from zero
    s = 31 - exp
    if m == (1 << 31):  # mantissa rounded up to 1.0
        m //= 2
        s -= 1
    if not (0 < m < (1 << 31) and 0 <= s <= 63):
        fail(f"scale {real} does not quantise")
    return m, s


def srdhm(a, b):
    """TFLite SaturatingRoundingDoublingHighMul on int64 arrays holding int32 values."""
    a = np.asarray(a, dtype=np.int64)
    prod = a * np.int64(b)  # |a|, |b| < 2^31: fits int64
    nudge = np.where(prod >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    q = prod + nudge
    # Division by 2^31 truncating towards zero (C semantics), not numpy's floor.
    return np.where(q >= 0, q >> 31, -((-q) >> 31))


def rdbpot(x, e):
    """TFLite RoundingDivideByPOT: round half away from zero."""
    x = np.asarray(x, dtype=np.int64)
    if e == 0:
        return x
    mask = np.int64((1 << e) - 1)
    rem = x & mask
    thr = (mask >> 1) + np.where(x < 0, 1, 0)
    return (x >> e) + np.where(rem > thr, 1, 0)


def mbqm(x, m, s):
    """TFLite MultiplyByQuantizedMultiplier with the multiplier given as (M, s): real = M * 2^-s, s = 31 - exp."""
    exp = 31 - s
    if exp > 0:
        fail("multipliers >= 1 are not used here (their negative-tie rounding differs between TFLite and DBL)")
    x = np.asarray(x, dtype=np.int64)
    if np.any(np.abs(x) >= (1 << 31)):
        fail("accumulator beyond int32")
    return rdbpot(srdhm(x, m), -exp)


def sat8(x):
    return np.clip(x, -128, 127).astype(np.int8)


# ----------------------------------------------------------------------------------------------------------------
# Reference kernels (NHWC, batch 1, int arithmetic on int64 arrays).

def ref_conv(x, x_zp, w, bias, mult, shift, out_zp, act_min, act_max, pad, depthwise=False):
    """Convolution with stride 1. w: OHWI (depthwise: [C, KH, KW, 1]). mult/shift per output channel."""
    h, wd, c = x.shape
    o, kh, kw, _ = w.shape
    xp = np.full((h + pad[0] + pad[2], wd + pad[1] + pad[3], c), x_zp, dtype=np.int64)  # padding = zero point
    xp[pad[0]:pad[0] + h, pad[1]:pad[1] + wd, :] = x
    xp -= x_zp
    oh, ow = xp.shape[0] - kh + 1, xp.shape[1] - kw + 1
    acc = np.zeros((oh, ow, o), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            win = xp[ky:ky + oh, kx:kx + ow, :]
            if depthwise:
                acc += win * w[:, ky, kx, 0].astype(np.int64)
            else:
                acc += np.tensordot(win, w[:, ky, kx, :].astype(np.int64), axes=([2], [1]))
    acc += bias.astype(np.int64)
    out = np.empty_like(acc)
    for oc in range(o):
        out[:, :, oc] = mbqm(acc[:, :, oc], int(mult[oc]), int(shift[oc]))
    return sat8(np.clip(out + out_zp, act_min, act_max))


def ref_maxpool(x, k, s):
    h, w, c = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.full((oh, ow, c), -128, dtype=np.int64)
    for ky in range(k):
        for kx in range(k):
            out = np.maximum(out, x[ky:ky + s * oh:s, kx:kx + s * ow:s, :])
    return out.astype(np.int8)  # same quantisation in and out, no activation: the clamp is the int8 range


def add_params(s1, s2, s_out):
    """TFLite int8 ADD parameters: left shift 20, inputs rescaled to 2*max(s1, s2), output from there."""
    twice_max = 2.0 * max(float(s1), float(s2))
    return (quantise_scale(float(s1) / twice_max), quantise_scale(float(s2) / twice_max),
            quantise_scale(twice_max / ((1 << 20) * float(s_out))))


def ref_add(a, a_zp, b, b_zp, out_zp, params):
    (m1, s1), (m2, s2), (mo, so) = params
    av = (a.astype(np.int64) - a_zp) << 20
    bv = (b.astype(np.int64) - b_zp) << 20
    raw = mbqm(av, m1, s1) + mbqm(bv, m2, s2)
    return sat8(mbqm(raw, mo, so) + out_zp)


def npu_add_cross_check(a, a_zp, b, b_zp, out_zp, opa, ofm):
    """ADD as spec 03 section 8.1 defines the OPA_32 mode: A' = DBL(a, OPA), B' = b << 19, DBL(A' + B', OFM).
    TFLite rounds A twice (SRDHM then RDBPOT), the NPU once; this confirms that the data never lands where
    that matters, so the expected output is the same under both readings."""
    def dbl(x, m, s):
        p = x.astype(object) * m
        r = (1 << (s - 1)) if s > 0 else 0
        if s > 31:
            r = np.where(x >= 0, r + (1 << 30), r - (1 << 30))
        return np.array([int(v) >> s for v in (p + r).ravel()], dtype=np.int64).reshape(x.shape)
    av = a.astype(np.int64) - a_zp
    bv = b.astype(np.int64) - b_zp
    return sat8(dbl(dbl(av, *opa) + (bv << 19), *ofm) + out_zp)


def ref_fc(x, x_zp, w, bias, mult, shift, out_zp):
    acc = (w.astype(np.int64) @ (x.reshape(-1).astype(np.int64) - x_zp)) + bias
    return sat8(mbqm(acc, mult, shift) + out_zp)


# ----------------------------------------------------------------------------------------------------------------
# Weight order (spec 04 section 3) and the scale/bias stream (spec 03 section 5).

def weight_order(w, obd, pk, depthwise):
    """Zero-point-corrected OHWI weights -> the sequence the weight decoder delivers (8-bit IFM, no dilation)."""
    o_n, kh, kw, i_n = w.shape
    ibd_full = 16 if pk else 32
    skh = skw = 8
    seq = []
    for ob in range(0, o_n, obd):
        blk_d = min(obd, o_n - ob)
        for ib in ([0] if depthwise else range(0, i_n, ibd_full)):
            ibd = IFM_UB if depthwise else (min(ibd_full, i_n - ib) if pk else ibd_full)
            for sy in range(0, kh, skh):
                for sx in range(0, kw, skw):
                    sh, sw = min(skh, kh - sy), min(skw, kw - sx)
                    e_n = sh * sw
                    if pk or depthwise:
                        e_n = -(-e_n // 4) * 4
                    for iu_out in (range(0, ibd, IFM_UB) if pk else [0]):
                        for ou in range(0, blk_d, OFM_UB):
                            for e in range(e_n):
                                kx, ky = e % sw, e // sw
                                for iu_in in ([0] if pk else range(0, ibd, IFM_UB)):
                                    for oz in range(OFM_UB):
                                        for iz in ([0] if depthwise else range(IFM_UB)):
                                            o = ob + ou + oz
                                            i = ib + iu_out + iu_in + iz
                                            ok = i < i_n and o < o_n and ky < sh and o < ob + blk_d
                                            seq.append(int(w[o, sy + ky, sx + kx, i]) if ok else 0)
    return seq


def scale_stream(bias, mult, shift):
    out = bytearray()
    for b, m, s in zip(bias, mult, shift):
        out += (int(b) & ((1 << 40) - 1)).to_bytes(5, "little")
        out += int(m).to_bytes(4, "little")
        out += bytes([int(s) & 0x3F])
    return bytes(out) + bytes(-len(out) % 16)


# ----------------------------------------------------------------------------------------------------------------
# Weight encoder (spec 04 section 2). One slice; zero runs and a palette when they pay, as the spec's encoder
# facts describe; Golomb-Rice parameters picked by trying them all.

class BitWriter:
    def __init__(self):
        self.bits = []

    def put(self, value, n):
        for i in range(n):
            self.bits.append((value >> i) & 1)

    def tobytes(self):
        out = bytearray()
        for i in range(0, len(self.bits), 8):
            byte = 0
            for j, b in enumerate(self.bits[i:i + 8]):
                byte |= b << j
            out.append(byte)
        return bytes(out)


def to_code(v):
    return 2 * v if v >= 0 else 2 * (-v) + 1


def encode_slice(bw, idx, zruns, kw, kz, header):
    """Chunked payload: the encoder replays the decoder's participation rule (balance of W and Z symbols) so
    that both sides agree on which unary blocks each chunk holds; remainders trail by one chunk."""
    n = len(idx)
    nz = len(zruns) if zruns is not None else 0
    zr_on = zruns is not None
    bw.put(kz if zr_on else 6, 3)
    bw.put(n - 1, 15)
    bw.put(kw, 3)
    bw.put(0, 1)  # WTRUNC
    bw.put(1, 1)  # NEWPAL
    dirofs, palette, palbits = header
    bw.put(dirofs, 5)
    bw.put(len(palette) - 1 if palette else 0, 5)
    bw.put(palbits - 2, 3)
    for p in palette:
        bw.put(p, palbits)

    w_codes = []  # unary codes 0/1/2 of every weight quotient, in order
    for v in idx:
        q = v >> kw
        w_codes += [2] * (q // 2) + [q % 2]
    z_bits = []
    for z in (zruns or []):
        z_bits += [1] * (z >> kz) + [0]
    z_block = 12 if kz < 3 else 8
    wc = zc = wp = zp = 0
    prev_w = prev_z = (0, 0)
    while True:
        balance = wp - zp if zr_on else 0
        w_part = (balance < 8 or not zr_on) and wp < n
        z_part = zr_on and balance >= 0 and zp < nz
        w_begin, z_begin = wp, zp
        codes = []
        if w_part:
            codes = (w_codes[wc:wc + 12] + [0] * 12)[:12]
            wc += 12
            bw.put(sum(1 << i for i, c in enumerate(codes) if c > 0), 12)
        if z_part:
            bits = (z_bits[zc:zc + z_block] + [0] * z_block)[:z_block]
            zc += z_block
            bw.put(sum(b << i for i, b in enumerate(bits)), z_block)
            zp += bits.count(0)
        if w_part:
            ones = [c - 1 for c in codes if c > 0]
            bw.put(sum(b << i for i, b in enumerate(ones)), len(ones))
            wp += sum(1 for c in codes if c < 2)
        for j in range(prev_w[0], min(prev_w[1], n)):
            bw.put(idx[j] & ((1 << kw) - 1), kw)
        for j in range(prev_z[0], min(prev_z[1], nz)):
            bw.put(zruns[j] & ((1 << kz) - 1), kz)
        if not w_part and not z_part:
            break
        prev_w, prev_z = (w_begin, wp), (z_begin, zp)


def encode_weights(seq):
    if not seq:
        fail("empty weight sequence")
    counts = Counter(seq)
    ranked = counts.most_common()
    use_zruns = ranked[0][0] == 0 and (len(ranked) == 1 or ranked[0][1] > 4 * ranked[1][1])
    values = [v for v in seq if v != 0] if use_zruns else list(seq)
    if not values:
        fail("all-zero weights need no stream")
    zruns = None
    if use_zruns:
        zruns, run = [], 0
        for v in seq:
            if v == 0:
                run += 1
            else:
                zruns.append(run)
                run = 0
        zruns.append(run)  # zeros after the last weight (a new-palette slice codes n + 1 runs)
    if len(values) > 32768:
        fail("more than one slice needed; not implemented")
    vcount = Counter(values).most_common()
    top = vcount[:32]
    palette = []
    if sum(c for _, c in top) * 2 > len(values):
        palette = [to_code(v) for v, _ in top]
        if len(palette) == 1:
            palette.append(palette[0] ^ 2 if palette[0] != 2 else 4)  # size 1 is not codable: add a spare entry
    for attempt in (palette, []):  # a palette shifts direct indices up; drop it if they then pass 9 bits
        pal_index = {c: k for k, c in enumerate(attempt)}
        direct = sorted({to_code(v) for v in values} - set(attempt))
        dirofs = min(direct[0], 31) if direct else 0
        idx = [pal_index[to_code(v)] if to_code(v) in pal_index else to_code(v) - dirofs + len(attempt)
               for v in values]
        if max(idx) < 512:
            palette = attempt
            break
    else:
        fail("weight index beyond 9 bits")
    palbits = max(2, max((p.bit_length() for p in palette), default=2))
    best = None
    for kw in range(6):
        for kz in (range(4) if use_zruns else [0]):
            bw = BitWriter()
            encode_slice(bw, idx, zruns, kw, kz, (dirofs, palette, palbits))
            if best is None or len(bw.bits) < len(best.bits):
                best = bw
    best.put(7, 3)                               # end-of-stream marker (ZDIV = 7)
    best.put(0xFF, -len(best.bits) % 8)          # 1s to the byte boundary
    data = best.tobytes()
    return data + b"\xff" * (-len(data) % 16)    # 0xFF padding to 16 bytes


# ----------------------------------------------------------------------------------------------------------------
# Independent decoder, written from spec 04 section 2 as a reader of the bytes (not reusing encoder state).

def decode_weights(data):
    pos = 0
    total = len(data) * 8

    def rd(n):
        nonlocal pos
        if pos + n > total:
            raise ValueError("read past the end of the stream")
        v = 0
        for i in range(n):
            v |= ((data[(pos + i) >> 3] >> ((pos + i) & 7)) & 1) << i
        pos += n
        return v

    out = []
    pal, dirofs, have_pal = [], 0, False
    while pos + 3 <= total:
        zdiv = rd(3)
        if zdiv == 7:
            pos = (pos + 7) & ~7
            continue
        if zdiv in (4, 5):
            raise ValueError("reserved ZDIV")
        n = rd(15) + 1
        wdiv = rd(3)
        if wdiv == 6:
            raise ValueError("reserved WDIV")
        wtrunc = rd(1)
        newpal = rd(1)
        if newpal:
            dirofs = rd(5)
            psize = rd(5)
            pbits = rd(3) + 2
            pal = [rd(pbits) for _ in range(psize + 1 if psize else 0)]
            have_pal = True
        elif not have_pal:
            raise ValueError("first slice without a palette definition")
        if wdiv == 7:
            raise ValueError("uncompressed mode is not produced by this encoder")
        zon = zdiv != 6
        nz = n + newpal if zon else 0
        zbits = 12 if zdiv < 3 else 8
        wq, zq = [], []
        wcarry = zcarry = 0
        prev_w = prev_z = (0, 0)
        wrem, zrem = {}, {}
        while True:
            bal = len(wq) - len(zq) if zon else 0
            wpart = (bal < 8 or not zon) and len(wq) < n
            zpart = zon and bal >= 0 and len(zq) < nz
            wb, zb = len(wq), len(zq)
            u0 = rd(12) if wpart else 0
            if zpart:
                u = rd(zbits)
                for i in range(zbits):
                    if (u >> i) & 1:
                        zcarry += 1
                    else:
                        zq.append(zcarry)
                        zcarry = 0
            if wpart:
                ones = bin(u0).count("1")
                u1 = rd(ones)
                k = 0
                for i in range(12):
                    code = 0
                    if (u0 >> i) & 1:
                        code = 1 + ((u1 >> k) & 1)
                        k += 1
                    wcarry += code
                    if wtrunc or code < 2:
                        wq.append(wcarry)
                        wcarry = 0
            for j in range(prev_w[0], min(prev_w[1], n)):
                wrem[j] = rd(wdiv)
            for j in range(prev_z[0], min(prev_z[1], nz)):
                zrem[j] = rd(zdiv)
            if not wpart and not zpart:
                break
            prev_w, prev_z = (wb, len(wq)), (zb, len(zq))
        vals = []
        for j in range(n):
            index = (wq[j] << wdiv) + wrem[j]
            code = pal[index] if index < len(pal) else index - len(pal) + dirofs
            if code >= 512:
                raise ValueError("code beyond 9 bits")
            vals.append(-(code >> 1) if code & 1 else code >> 1)
        if zon:
            runs = [(zq[j] << zdiv) + zrem[j] for j in range(nz)]
            if newpal:
                out += [0] * runs[0]
                runs = runs[1:]
            for v, r in zip(vals, runs):
                out += [v] + [0] * r
        else:
            out += vals
    return out


# ----------------------------------------------------------------------------------------------------------------
# Command stream check: replay tiny_cnn.s as sticky register state and compare each operation's snapshot.

def parse_stream_text(path):
    ops, state = [], {}
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            line = re.split(r"[;#]", line, maxsplit=1)[0].split()
            if not line:
                continue
            cmd, fields = line[0], {}
            for tok in line[1:]:
                k, _, v = tok.partition("=")
                try:
                    fields[k] = int(v, 0)
                except ValueError:
                    fields[k] = v
            if cmd.startswith("NPU_SET_"):
                state[cmd] = fields
            elif cmd.startswith("NPU_OP_"):
                ops.append((cmd, fields, {k: dict(v) for k, v in state.items()}, line_no))
    return ops


def check_stream(path, expected):
    ops = parse_stream_text(path)
    kernel = [op for op in ops if op[0] not in ("NPU_OP_STOP",)]
    names = [op[0] for op in ops]
    if names[-1] != "NPU_OP_STOP" or ops[-1][1].get("mask") != 0xFFFF:
        fail(f"{path}: the stream must end with NPU_OP_STOP mask=0xffff")
    if len(kernel) != len(expected):
        fail(f"{path}: {len(kernel)} operations, expected {len(expected)}")
    errors = []
    for (cmd, fields, state, line_no), (want_cmd, want_fields, want_regs) in zip(kernel, expected):
        if cmd != want_cmd or any(fields.get(k) != v for k, v in want_fields.items()):
            errors.append(f"line {line_no}: {cmd} {fields}, expected {want_cmd} {want_fields}")
        for reg, want in want_regs.items():
            have = state.get(reg, {})
            for k, v in want.items():
                if have.get(k, 0) != v:
                    errors.append(f"line {line_no} ({cmd}): {reg}.{k} is {have.get(k)}, expected {v}")
    if errors:
        fail(f"{path} disagrees with the data:\n  " + "\n  ".join(errors))
    return names


def fm_regs(prefix, base, h, w, c, zp=None):
    """Single-tile NHWC int8 feature map: the registers Vela programs (tile sizes = the map, default strides)."""
    p = f"NPU_SET_{prefix}_"
    regs = {p + "BASE0": {"addr": base}, p + "BASE1": {"addr": 0}, p + "BASE2": {"addr": 0}, p + "BASE3": {"addr": 0},
            p + "HEIGHT0_M1": {"height_m1": h - 1}, p + "HEIGHT1_M1": {"height_m1": h - 1},
            p + "WIDTH0_M1": {"width_m1": w - 1},
            p + "STRIDE_C": {"stride": 1}, p + "STRIDE_X": {"stride": c}, p + "STRIDE_Y": {"stride": w * c},
            p + "REGION": {"region": 1}}
    if zp is not None:
        regs[p + "ZERO_POINT"] = {"zero_point": zp}
    if prefix == "OFM":
        regs.update({p + "HEIGHT_M1": {"height_m1": h - 1}, p + "WIDTH_M1": {"width_m1": w - 1},
                     p + "DEPTH_M1": {"depth_m1": c - 1}})
    return regs


def shram(ofm_blk, ifm_blk_wh, ifm_blk_d, elementwise=False, binary=False):
    """IB_END / AB_START / IFM2_IB_START the way Vela allocates SHRAM (spec 05 section 3), 8-bit IFM, Acc32."""
    ifm_bytes = ifm_blk_wh[0] * ifm_blk_wh[1] * (-(-ifm_blk_d // 8) * 8)
    ifm_banks = -(-2 * -(-ifm_bytes // 1024) // 8) * 8
    lut_start = SHRAM_BANKS - RESERVED_END_BANKS
    ib_end = 2 + ifm_banks
    if elementwise:
        regs = {"NPU_SET_IFM_IB_END": {"ib_end": lut_start}, "NPU_SET_AB_START": {"ab_start": lut_start}}
        if binary:
            regs["NPU_SET_IFM2_IB_START"] = {"ib_start": ib_end}
            if ib_end + ifm_banks > lut_start:
                fail("elementwise block does not fit SHRAM")
        return regs
    h, w, d = ofm_blk
    acc_bytes = w * h * (-(-d // 8) * 8) * 4
    acc_banks = -(-2 * -(-acc_bytes // 1024) // 16) * 16
    ab_start = lut_start - acc_banks
    if ib_end > ab_start:
        fail("block config does not fit SHRAM")
    return {"NPU_SET_IFM_IB_END": {"ib_end": ib_end}, "NPU_SET_AB_START": {"ab_start": ab_start}}


def blk(h, w, d):
    return {"NPU_SET_OFM_BLK_HEIGHT_M1": {"height_m1": h - 1}, "NPU_SET_OFM_BLK_WIDTH_M1": {"width_m1": w - 1},
            "NPU_SET_OFM_BLK_DEPTH_M1": {"depth_m1": d - 1}}


def ifm_misc(depth, zp, pads=None, scale_mode="OPA_OPB_16"):
    regs = {"NPU_SET_IFM_DEPTH_M1": {"depth_m1": depth - 1}, "NPU_SET_IFM_ZERO_POINT": {"zero_point": zp},
            "NPU_SET_IFM_PRECISION": {"activation_type": "SIGNED", "activation_precision": "B8",
                                      "activation_format": "NHWC", "scale_mode": scale_mode, "round_mode": "DBL"},
            "NPU_SET_IFM_UPSCALE": {"mode": "NONE"}}
    if pads is not None:
        for k, v in zip(("TOP", "LEFT", "BOTTOM", "RIGHT"), pads):
            regs["NPU_SET_IFM_PAD_" + k] = {"pad": v}
    return regs


def ofm_misc(scale_mode, act_min, act_max):
    return {"NPU_SET_OFM_PRECISION": {"activation_type": "SIGNED", "activation_precision": "B8",
                                      "activation_format": "NHWC", "scale_mode": scale_mode, "round_mode": "DBL"},
            "NPU_SET_ACTIVATION": {"activation_function": "RELU", "activation_clip_range": "OFM_PRECISION"},
            "NPU_SET_ACTIVATION_MIN": {"clip_boundary": act_min}, "NPU_SET_ACTIVATION_MAX": {"clip_boundary": act_max},
            "NPU_SET_ACC_FORMAT": {"acc_format": "I32"}, "NPU_SET_PARALLEL_MODE": {"parallel_mode": "SINGLE_CORE"}}


def kernel_regs(k, stride, order):
    return {"NPU_SET_KERNEL_HEIGHT_M1": {"height_m1": k - 1}, "NPU_SET_KERNEL_WIDTH_M1": {"width_m1": k - 1},
            "NPU_SET_KERNEL_STRIDE": {"stride_x_lsb": (stride - 1) & 1, "stride_y_lsb": (stride - 1) & 1,
                                      "stride_x_msb": (stride - 1) >> 1, "stride_y_msb": (stride - 1) >> 1,
                                      "weight_order": order, "dilation_x": "NONE", "dilation_y": "NONE",
                                      "decomposition": "D8X8"}}


def ws_regs(w_off, w_len, s_off, s_len):
    return {"NPU_SET_WEIGHT_REGION": {"region": 0}, "NPU_SET_WEIGHT_BASE": {"addr": w_off},
            "NPU_SET_WEIGHT_LENGTH": {"length": w_len}, "NPU_SET_SCALE_REGION": {"region": 0},
            "NPU_SET_SCALE_BASE": {"addr": s_off}, "NPU_SET_SCALE_LENGTH": {"length": s_len}}


# ----------------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asm", required=True, help="tiny_cnn.s, checked against the data")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--cmdstream", help="assembled stream, recorded (size, sha256) in the manifest")
    args = ap.parse_args()

    rng = np.random.RandomState(SEED)
    x = rng.randint(-128, 128, size=(16, 16, 3)).astype(np.int8)

    # Op 1: conv 3x3, 3 -> 8, per-channel symmetric int8 weights.
    conv_w = rng.randint(-127, 128, size=(8, 3, 3, 3)).astype(np.int8)
    conv_ws = rng.uniform(0.004, 0.011, size=8).astype(np.float32)
    conv_b = np.round(rng.normal(0.0, 0.8, size=8) / (float(IN_SCALE) * conv_ws.astype(np.float64))).astype(np.int64)
    conv_q = [quantise_scale(float(IN_SCALE) * float(s) / float(CONV_SCALE)) for s in conv_ws]
    # Op 3: depthwise 3x3; weights from a few levels (clustered, as trained-and-quantised weights often are),
    # which makes the encoder use a palette.
    levels = np.array([-96, -64, -40, -24, -12, 12, 24, 40, 64, 96, 127], dtype=np.int64)
    dw_w = levels[rng.randint(0, len(levels), size=(8, 3, 3, 1))].astype(np.int8)
    dw_ws = rng.uniform(0.0025, 0.0055, size=8).astype(np.float32)
    dw_b = np.round(rng.normal(0.0, 0.3, size=8) / (float(CONV_SCALE) * dw_ws.astype(np.float64))).astype(np.int64)
    dw_q = [quantise_scale(float(CONV_SCALE) * float(s) / float(DW_SCALE)) for s in dw_ws]
    # Op 5: fully connected 512 -> 10, per-tensor weights.
    fc_w = rng.randint(-127, 128, size=(10, 512)).astype(np.int8)
    fc_b = np.round(rng.normal(0.0, 2.0, size=10) / (float(ADD_SCALE) * float(FC_W_SCALE))).astype(np.int64)
    fc_q = quantise_scale(float(ADD_SCALE) * float(FC_W_SCALE) / float(FC_SCALE))

    # Reference.
    conv_out = ref_conv(x, IN_ZP, conv_w, conv_b, [m for m, _ in conv_q], [s for _, s in conv_q],
                        CONV_ZP, CONV_ZP, 127, (1, 1, 1, 1))                       # ReLU: min = quantise(0)
    pool_out = ref_maxpool(conv_out, 2, 2)
    dw_out = ref_conv(pool_out, CONV_ZP, dw_w, dw_b, [m for m, _ in dw_q], [s for _, s in dw_q],
                      DW_ZP, -128, 127, (1, 1, 1, 1), depthwise=True)
    add_p = add_params(CONV_SCALE, DW_SCALE, ADD_SCALE)
    add_out = ref_add(pool_out, CONV_ZP, dw_out, DW_ZP, ADD_ZP, add_p)
    # Register values for the ADD (spec 03 section 8.1, OPA_32 mode): operand A (the IFM, smaller scale) is
    # scaled by min_s * 2^20 / (2 max_s); B is implicitly << 19; the OFM scale undoes the 2^20.
    opa = quantise_scale(float(CONV_SCALE) * (1 << 20) / (2.0 * float(DW_SCALE)))
    ofm_add = add_p[2]
    if add_p[1] != (1 << 30, 31):
        fail("operand B of the ADD must have the larger scale")
    npu_add = npu_add_cross_check(pool_out, CONV_ZP, dw_out, DW_ZP, ADD_ZP, opa, ofm_add)
    if not np.array_equal(npu_add, add_out):
        fail(f"ADD: TFLite and NPU rounding disagree on {int(np.sum(npu_add != add_out))} elements; change SEED")
    fc_out = ref_fc(add_out, ADD_ZP, fc_w, fc_b, fc_q[0], fc_q[1], FC_ZP)

    # Guard against scale choices that would make the sample trivial: little saturation, many distinct values.
    # ReLU maps (conv, pool) legitimately sit at their zero point, so only the top counts there.
    for name, t, lo in (("conv", conv_out, None), ("pool", pool_out, None), ("dwconv", dw_out, -128),
                        ("add", add_out, -128), ("fc", fc_out, -128)):
        sat = np.mean((t == 127) | (t == lo)) if lo is not None else np.mean(t == 127)
        if sat > 0.05 or len(np.unique(t)) < min(t.size // 2, 40):
            fail(f"{name} output is degenerate (saturated {sat:.1%}, {len(np.unique(t))} distinct values)")

    # Region 0: per op [scale stream][weight stream], 16-byte aligned (spec 03 section 5).
    region0 = bytearray()
    layout = {}
    streams = (("conv", conv_w, conv_b, conv_q, 8, True, False),
               ("dwconv", dw_w, dw_b, dw_q, 8, False, True),
               ("fc", fc_w.reshape(10, 1, 1, 512), fc_b, [fc_q] * 10, 16, False, False))
    for name, w, b, q, obd, pk, dw in streams:
        ss = scale_stream(b, [m for m, _ in q], [s for _, s in q])
        seq = weight_order(w, obd, pk, dw)
        enc = encode_weights(seq)
        dec = decode_weights(enc)
        if dec != seq:
            fail(f"{name}: the weight stream does not decode to what was encoded")
        s_off = len(region0)
        region0 += ss
        w_off = len(region0)
        region0 += enc
        layout[name] = (w_off, len(enc), s_off, len(ss), len(seq))

    # What tiny_cnn.s must program, operation by operation (sticky state: the full snapshot is compared).
    c, d, f = layout["conv"], layout["dwconv"], layout["fc"]
    expected = [
        ("NPU_OP_CONV", {}, {**fm_regs("IFM", A_INPUT, 16, 16, 3), **ifm_misc(3, IN_ZP, (1, 1, 1, 1)),
                             **fm_regs("OFM", A_CONV, 16, 16, 8, CONV_ZP), **ofm_misc("PER_CHANNEL", CONV_ZP, 127),
                             **kernel_regs(3, 1, "PART_KERNEL_FIRST"), **ws_regs(c[0], c[1], c[2], c[3]),
                             **blk(16, 16, 8), **shram((16, 16, 8), (18, 18), 8)}),
        ("NPU_OP_POOL", {"pooling_mode": "MAX"},
         {**fm_regs("IFM", A_CONV, 16, 16, 8), **ifm_misc(8, CONV_ZP, (0, 0, 0, 0)),
          **fm_regs("OFM", A_POOL, 8, 8, 8, CONV_ZP), **ofm_misc("PER_CHANNEL", -128, 127),
          **kernel_regs(2, 2, "DEPTH_FIRST"), **blk(8, 8, 8), **shram((8, 8, 8), (16, 16), 8)}),
        ("NPU_OP_DEPTHWISE", {}, {**fm_regs("IFM", A_POOL, 8, 8, 8), **ifm_misc(8, CONV_ZP, (1, 1, 1, 1)),
                                  **fm_regs("OFM", A_DW, 8, 8, 8, DW_ZP), **ofm_misc("PER_CHANNEL", -128, 127),
                                  **kernel_regs(3, 1, "DEPTH_FIRST"), **ws_regs(d[0], d[1], d[2], d[3]),
                                  **blk(8, 8, 8), **shram((8, 8, 8), (10, 10), 8)}),
        ("NPU_OP_ELEMENTWISE", {"elementwise_mode": "ADD"},
         {**fm_regs("IFM", A_POOL, 8, 8, 8), **ifm_misc(8, CONV_ZP, scale_mode="OPA_32"),
          **fm_regs("IFM2", A_DW, 8, 8, 8, DW_ZP),
          "NPU_SET_IFM2_PRECISION": {"activation_type": "SIGNED", "activation_precision": "B8",
                                     "activation_format": "NHWC"},
          "NPU_SET_IFM2_BROADCAST": {"broadcast_h": "DISABLE", "broadcast_w": "DISABLE", "broadcast_c": "DISABLE",
                                     "operand_order": "ORDER_B", "broadcast_constant": "DISABLE"},
          "NPU_SET_OPA_SCALE": {"scale": opa[0], "shift": opa[1]}, "NPU_SET_OPB_SCALE": {"scale": 0},
          "NPU_SET_OFM_SCALE": {"scale": ofm_add[0], "shift": ofm_add[1]},
          **fm_regs("OFM", A_ADD, 8, 8, 8, ADD_ZP), **ofm_misc("GLOBAL", -128, 127),
          **blk(8, 8, 8), **shram(None, (8, 8), 8, elementwise=True, binary=True)}),
        ("NPU_OP_CONV", {}, {**fm_regs("IFM", A_ADD, 1, 1, 512), **ifm_misc(512, ADD_ZP, (0, 0, 0, 0)),
                             **fm_regs("OFM", A_FC, 1, 1, 10, FC_ZP), **ofm_misc("PER_CHANNEL", -128, 127),
                             **kernel_regs(1, 1, "DEPTH_FIRST"), **ws_regs(f[0], f[1], f[2], f[3]),
                             **blk(2, 2, 16), **shram((2, 2, 16), (2, 2), 32)}),
    ]
    # FC reads the ADD output as 1x1x512: its IFM strides are those of a 1x1 map (X = Y = C bytes).
    op_names = check_stream(args.asm, expected)

    os.makedirs(args.out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(args.out, name), "wb") as fh:
            fh.write(bytes(data))

    write("region0_flash.bin", region0)
    write("input0.bin", x.tobytes())
    write("expected_output.bin", fc_out.tobytes())

    cmd = {"file": "cmdstream.bin", "npu_op_sequence": op_names, "source": "tiny_cnn.s"}
    if args.cmdstream:
        with open(args.cmdstream, "rb") as fh:
            raw = fh.read()
        cmd.update({"size_bytes": len(raw), "words": len(raw) // 4, "sha256": hashlib.sha256(raw).hexdigest()})
    macs = 16 * 16 * 8 * 27 + 8 * 8 * 8 * 9 + 512 * 10

    def tensor(name, shape, scale, zp, offset, file):
        return {"name": name, "shape": shape, "dtype": "int8", "scale": [float(scale)], "zero_point": [zp],
                "region": 1, "offset": offset, "size_bytes": int(np.prod(shape)), "file": file, "layout": "NHWC"}

    manifest = {
        "case": "tiny_cnn",
        "description": "sample job: conv3x3+relu -> maxpool2x2 -> depthwise3x3 -> add (residual) -> fully connected",
        "accelerator": "ethos-u65-256",
        "network": [
            {"op": "CONV_2D", "ifm": [1, 16, 16, 3], "ofm": [1, 16, 16, 8], "kernel": [3, 3], "stride": [1, 1],
             "padding": "SAME", "activation": "RELU", "macs": 16 * 16 * 8 * 27},
            {"op": "MAX_POOL_2D", "ifm": [1, 16, 16, 8], "ofm": [1, 8, 8, 8], "kernel": [2, 2], "stride": [2, 2],
             "padding": "VALID"},
            {"op": "DEPTHWISE_CONV_2D", "ifm": [1, 8, 8, 8], "ofm": [1, 8, 8, 8], "kernel": [3, 3],
             "stride": [1, 1], "padding": "SAME", "macs": 8 * 8 * 8 * 9},
            {"op": "ADD", "ifm": [1, 8, 8, 8], "ifm2": [1, 8, 8, 8], "ofm": [1, 8, 8, 8]},
            {"op": "FULLY_CONNECTED", "ifm": [1, 512], "ofm": [1, 10], "macs": 512 * 10},
        ],
        "macs": macs,
        "cmdstream": cmd,
        "regions": {
            "0": {"role": "flash", "content": "scale/bias streams and compressed weights, per op, 16-byte aligned",
                  "file": "region0_flash.bin", "size_bytes": len(region0),
                  "layout": {k: {"scale_offset": v[2], "scale_bytes": v[3], "weight_offset": v[0],
                                 "weight_bytes": v[1], "weights_decoded": v[4]} for k, v in layout.items()}},
            "1": {"role": "scratch", "content": "tensor arena: input, intermediates, output", "file": None,
                  "size_bytes": ARENA_SIZE},
            "2": {"role": "scratch_fast", "content": "unused by this stream", "file": None, "size_bytes": 0},
        },
        "inputs": [tensor("input", [1, 16, 16, 3], IN_SCALE, IN_ZP, A_INPUT, "input0.bin")],
        "outputs": [dict(tensor("logits", [1, 10], FC_SCALE, FC_ZP, A_FC, "expected_output.bin"),
                         overlaps_inputs=[])],
        "reference": {"files": {"expected_output.bin": "tflite_int_numpy"},
                      "input_generation": f"numpy RandomState({SEED}), uniform over int8"},
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
