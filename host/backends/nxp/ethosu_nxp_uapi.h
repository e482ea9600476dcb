// The user-space interface of NXP's /dev/ethosu0 driver (i.MX 93 BSP, Linux drivers/firmware/ethosu and
// nxp-imx/ethos-u-driver-stack-imx kernel_driver/include/uapi/ethosu.h), written from the published layout:
// ioctl type 0x01, the structures the ioctls copy, and their sizes as the kernel sees them on a 64-bit host.
//
// Contract: every structure is layout-compatible with the kernel's (the static_asserts pin the sizes the ioctl
// numbers encode). Two versions of NETWORK_INFO exist and have different ioctl numbers because their sizes
// differ: the Arm 22.x one (desc, ifm/ofm counts and sizes; 168 bytes) and NXP's lf-6.x one that adds is_vela,
// element types, arena offsets and shapes (1580 bytes); the shim answers both. PMU counts: NXP's i.MX 93 stack
// keeps Arm's 22.x layout, u32 event counts and a u64 cycle count (later Arm releases moved the event counts to
// u64; that layout is not used here). Inference status values, network types and inference types are plain
// u32 on the wire (C enums of int size).
#pragma once

#include <sys/ioctl.h>

#include <cstddef>
#include <cstdint>

namespace ethosu::nxp {

inline constexpr uint32_t kFdMax = 16;        // IFM/OFM buffers per inference
inline constexpr uint32_t kDimMax = 8;        // dimensions per tensor in NETWORK_INFO (lf-6.x)
inline constexpr uint32_t kPmuEventMax = 4;   // event counters

enum Status : uint32_t {
  STATUS_OK = 0,
  STATUS_ERROR = 1,
  STATUS_RUNNING = 2,
  STATUS_REJECTED = 3,
  STATUS_ABORTED = 4,
  STATUS_ABORTING = 5,
};

enum NetworkType : uint32_t { NETWORK_BUFFER = 1, NETWORK_INDEX = 2 };

// The kernel treats every value but OP as MODEL (libethosu leaves the field uninitialised).
enum InferenceType : uint32_t { INFERENCE_MODEL = 0, INFERENCE_OP = 1 };

struct BufferCreate {
  uint32_t capacity;
};

// 'offset + size' must not exceed the buffer's capacity.
struct Buffer {
  uint32_t offset;
  uint32_t size;
};

struct NetworkCreate {
  uint32_t type;      // NetworkType
  uint32_t fd_or_index;
};

// Arm 22.x layout.
struct NetworkInfo {
  char desc[32];
  uint32_t ifm_count;
  uint32_t ifm_size[kFdMax];
  uint32_t ofm_count;
  uint32_t ofm_size[kFdMax];
};

// NXP lf-6.x layout.
struct NetworkInfoV2 {
  char desc[32];
  uint32_t is_vela;
  uint32_t ifm_count;
  uint32_t ifm_size[kFdMax];
  uint32_t ifm_types[kFdMax];   // TFLite TensorType values
  uint32_t ifm_offset[kFdMax];  // arena byte offset (Vela's offline plan)
  uint32_t ifm_dims[kFdMax];
  uint32_t ifm_shapes[kFdMax][kDimMax];
  uint32_t ofm_count;
  uint32_t ofm_size[kFdMax];
  uint32_t ofm_types[kFdMax];
  uint32_t ofm_offset[kFdMax];
  uint32_t ofm_dims[kFdMax];
  uint32_t ofm_shapes[kFdMax][kDimMax];
};

// events[i]: a driver-API PMU event index (Arm's ethosu_pmu_event_type), 0 = counter unused.
struct PmuConfig {
  uint32_t events[kPmuEventMax];
  uint32_t cycle_count;  // non-zero: count cycles
};

struct PmuCounts {
  uint32_t events[kPmuEventMax];
  uint64_t cycle_count;
};

struct HwId {
  uint32_t version_status, version_minor, version_major, product_major;
  uint32_t arch_patch_rev, arch_minor_rev, arch_major_rev;
};

struct HwCfg {
  uint32_t macs_per_cc, cmd_stream_version, custom_dma;
};

struct DeviceCapabilities {
  HwId hw_id;
  HwCfg hw_cfg;
  uint32_t driver_patch_rev, driver_minor_rev, driver_major_rev;
};

struct InferenceCreate {
  uint32_t ifm_count;
  uint32_t ifm_fd[kFdMax];
  uint32_t ofm_count;
  uint32_t ofm_fd[kFdMax];
  uint32_t inference_type;  // InferenceType
  PmuConfig pmu_config;
};

struct ResultStatus {
  uint32_t status;  // Status
  PmuConfig pmu_config;
  PmuCounts pmu_count;
};

struct CancelInferenceStatus {
  uint32_t status;  // Status
};

static_assert(sizeof(BufferCreate) == 4 && sizeof(Buffer) == 8 && sizeof(NetworkCreate) == 8);
static_assert(sizeof(NetworkInfo) == 168 && sizeof(NetworkInfoV2) == 1580);
static_assert(sizeof(PmuConfig) == 20 && sizeof(PmuCounts) == 24 && offsetof(PmuCounts, cycle_count) == 16);
static_assert(sizeof(DeviceCapabilities) == 52);
static_assert(sizeof(InferenceCreate) == 160 && offsetof(InferenceCreate, pmu_config) == 140);
static_assert(sizeof(ResultStatus) == 48 && offsetof(ResultStatus, pmu_count) == 24);
static_assert(sizeof(CancelInferenceStatus) == 4);

inline constexpr unsigned long kIoctlType = 0x01;
inline constexpr unsigned long IOCTL_PING = _IO(kIoctlType, 0x00);
inline constexpr unsigned long IOCTL_VERSION_REQ = _IO(kIoctlType, 0x01);
inline constexpr unsigned long IOCTL_CAPABILITIES_REQ = _IOR(kIoctlType, 0x02, DeviceCapabilities);
inline constexpr unsigned long IOCTL_BUFFER_CREATE = _IOR(kIoctlType, 0x10, BufferCreate);
inline constexpr unsigned long IOCTL_BUFFER_SET = _IOR(kIoctlType, 0x11, Buffer);
inline constexpr unsigned long IOCTL_BUFFER_GET = _IOW(kIoctlType, 0x12, Buffer);
inline constexpr unsigned long IOCTL_NETWORK_CREATE = _IOR(kIoctlType, 0x20, NetworkCreate);
inline constexpr unsigned long IOCTL_NETWORK_INFO = _IOR(kIoctlType, 0x21, NetworkInfo);
inline constexpr unsigned long IOCTL_NETWORK_INFO_V2 = _IOR(kIoctlType, 0x21, NetworkInfoV2);
inline constexpr unsigned long IOCTL_INFERENCE_CREATE = _IOR(kIoctlType, 0x30, InferenceCreate);
inline constexpr unsigned long IOCTL_INFERENCE_STATUS = _IOR(kIoctlType, 0x31, ResultStatus);
inline constexpr unsigned long IOCTL_INFERENCE_CANCEL = _IOR(kIoctlType, 0x32, CancelInferenceStatus);

// OP mode's layout buffer (ifm[1]), as NXP's delegate writes it: u32 n_in, u32 n_out, then N = n_in + n_out + 3
// entries of u32 base_addr_size[] (the firmware's size_t is 32-bit on the Cortex-M33) and then u64 base_addr[N]
// (left for the firmware to fill). Entry 0 is the flash, 1 the scratch (arena), 2 the fast scratch.
inline constexpr size_t kLayoutHeaderBytes = 8;
inline constexpr size_t kLayoutEntryBytes = 12;  // one u32 size + one u64 address per base pointer

// OP mode's optional profiling buffer (ofm[0]): records the firmware samples while the job runs, as NXP's
// delegate reads them (EthosuQreadEvent).
struct QreadEvent {
  uint64_t cycle_count;
  uint32_t qread;
  uint32_t status;
  struct {
    uint32_t event_config;
    uint32_t event_count;
  } pmu[kPmuEventMax];
};
static_assert(sizeof(QreadEvent) == 48);

}  // namespace ethosu::nxp
