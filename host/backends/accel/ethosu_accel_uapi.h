/* The Linux DRM accel `ethosu` user interface as a client sees it: the generic DRM ioctls a libdrm client makes
 * (version, GEM close, capabilities) and the driver's own ioctls (device query, buffer objects, command-stream
 * buffers, submission, performance monitors).
 *
 * Contract: layout-compatible with the kernel's include/uapi/drm/drm.h and include/uapi/drm/ethosu_accel.h
 * (mainline plus the performance-counter ioctls): the same ioctl numbers, structure sizes and field offsets,
 * checked by the static assertions at the end. Written from spec 06 section 4.2 and the field lists of the
 * public kernel; plain C so that any client can include it. Only <stdint.h> and the kernel's generic
 * <linux/ioctl.h> number encoding are used.
 */
#ifndef ETHOSU_SIM_ETHOSU_ACCEL_UAPI_H
#define ETHOSU_SIM_ETHOSU_ACCEL_UAPI_H

#include <linux/ioctl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Generic DRM (type 'd'; driver ioctls start at 0x40) ---- */
#define ETHOSU_DRM_IOCTL_TYPE 'd'
#define ETHOSU_DRM_COMMAND_BASE 0x40

struct ethosu_drm_version {
  int32_t version_major;
  int32_t version_minor;
  int32_t version_patchlevel;
  size_t name_len; /* in: buffer size; out: full length (no NUL is written) */
  char* name;
  size_t date_len;
  char* date;
  size_t desc_len;
  char* desc;
};

struct ethosu_drm_gem_close {
  uint32_t handle;
  uint32_t pad;
};

struct ethosu_drm_get_cap {
  uint64_t capability;
  uint64_t value;
};
#define ETHOSU_DRM_CAP_DUMB_BUFFER 0x1
#define ETHOSU_DRM_CAP_PRIME 0x5
#define ETHOSU_DRM_CAP_TIMESTAMP_MONOTONIC 0x6

#define ETHOSU_DRM_IOCTL_VERSION _IOWR(ETHOSU_DRM_IOCTL_TYPE, 0x00, struct ethosu_drm_version)
#define ETHOSU_DRM_IOCTL_GEM_CLOSE _IOW(ETHOSU_DRM_IOCTL_TYPE, 0x09, struct ethosu_drm_gem_close)
#define ETHOSU_DRM_IOCTL_GET_CAP _IOWR(ETHOSU_DRM_IOCTL_TYPE, 0x0c, struct ethosu_drm_get_cap)

/* ---- The ethosu driver: command numbers relative to ETHOSU_DRM_COMMAND_BASE ---- */
enum ethosu_accel_command {
  ETHOSU_ACCEL_DEV_QUERY = 0,
  ETHOSU_ACCEL_BO_CREATE = 1,
  ETHOSU_ACCEL_BO_WAIT = 2,
  ETHOSU_ACCEL_BO_MMAP_OFFSET = 3,
  ETHOSU_ACCEL_CMDSTREAM_BO_CREATE = 4,
  ETHOSU_ACCEL_SUBMIT = 5,
  ETHOSU_ACCEL_PERFMON_CREATE = 6,
  ETHOSU_ACCEL_PERFMON_DESTROY = 7,
  ETHOSU_ACCEL_PERFMON_GET_VALUES = 8,
  ETHOSU_ACCEL_PERFMON_SET_GLOBAL = 9,
};

#define ETHOSU_ACCEL_DEV_QUERY_NPU_INFO 0u

/* The NPU's ID and CONFIG registers, the on-chip SRAM the driver owns, and the PMU's event counters. */
struct ethosu_accel_npu_info {
  uint32_t id;
  uint32_t config;
  uint32_t sram_size;
  uint32_t pmu_counters;
};

/* pointer 0: the driver returns the structure size in `size`; otherwise it copies min(size, its size) bytes
 * (size must cover at least id, config and sram_size). */
struct ethosu_accel_dev_query {
  uint32_t type;
  uint32_t size;
  uint64_t pointer;
};

#define ETHOSU_ACCEL_BO_NO_MMAP (1u << 0)

struct ethosu_accel_bo_create {
  uint64_t size;   /* in: bytes wanted; out: the page-rounded size */
  uint32_t flags;  /* ETHOSU_ACCEL_BO_NO_MMAP or 0 */
  uint32_t handle; /* out, non-zero */
};

struct ethosu_accel_bo_wait {
  uint32_t handle;
  uint32_t pad;
  int64_t timeout_ns; /* absolute CLOCK_MONOTONIC time */
};

struct ethosu_accel_bo_mmap_offset {
  uint32_t handle;
  uint32_t pad;
  uint64_t offset; /* out: the offset to pass to mmap() on the device file */
};

/* Copies and validates a bare command stream (not a COP1 payload). */
struct ethosu_accel_cmdstream_bo_create {
  uint32_t size;
  uint32_t flags; /* must be 0 */
  uint64_t data;  /* user pointer to the stream */
  uint32_t handle;
  uint32_t pad;
};

#define ETHOSU_ACCEL_MAX_REGIONS 8
#define ETHOSU_ACCEL_SRAM_REGION 2

struct ethosu_accel_job {
  uint32_t cmd_bo;
  uint32_t sram_size; /* > 0: region 2 is the driver's on-chip SRAM (no BO for it) */
  uint32_t region_bo_handles[ETHOSU_ACCEL_MAX_REGIONS];
};

struct ethosu_accel_submit {
  uint64_t jobs; /* user pointer to job_count struct ethosu_accel_job */
  uint32_t job_count;
  uint32_t perfmon_id; /* 0: none (was `pad` before the performance counters) */
};

#define ETHOSU_ACCEL_MAX_PERF_EVENT_COUNTERS 8
#define ETHOSU_ACCEL_MAX_PERF_COUNTERS (ETHOSU_ACCEL_MAX_PERF_EVENT_COUNTERS + 1)

/* Raw hardware event ids (PMEVTYPER values); the cycle counter is appended as the last value. */
struct ethosu_accel_perfmon_create {
  uint32_t id; /* out */
  uint32_t ncounters;
  uint16_t counters[ETHOSU_ACCEL_MAX_PERF_EVENT_COUNTERS];
};

struct ethosu_accel_perfmon_destroy {
  uint32_t id;
};

/* Writes ncounters + 1 uint64_t values (events, then cycles) to values_ptr; accumulated over the jobs run. */
struct ethosu_accel_perfmon_get_values {
  uint32_t id;
  uint32_t pad;
  uint64_t values_ptr;
};

#define ETHOSU_ACCEL_PERFMON_CLEAR_GLOBAL 0x0001u

struct ethosu_accel_perfmon_set_global {
  uint32_t flags;
  uint32_t id;
};

#define ETHOSU_ACCEL_IOCTL(nr, type) _IOWR(ETHOSU_DRM_IOCTL_TYPE, ETHOSU_DRM_COMMAND_BASE + (nr), type)
#define ETHOSU_ACCEL_IOCTL_DEV_QUERY ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_DEV_QUERY, struct ethosu_accel_dev_query)
#define ETHOSU_ACCEL_IOCTL_BO_CREATE ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_BO_CREATE, struct ethosu_accel_bo_create)
#define ETHOSU_ACCEL_IOCTL_BO_WAIT ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_BO_WAIT, struct ethosu_accel_bo_wait)
#define ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_BO_MMAP_OFFSET, struct ethosu_accel_bo_mmap_offset)
#define ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_CMDSTREAM_BO_CREATE, struct ethosu_accel_cmdstream_bo_create)
#define ETHOSU_ACCEL_IOCTL_SUBMIT ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_SUBMIT, struct ethosu_accel_submit)
#define ETHOSU_ACCEL_IOCTL_PERFMON_CREATE \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_PERFMON_CREATE, struct ethosu_accel_perfmon_create)
#define ETHOSU_ACCEL_IOCTL_PERFMON_DESTROY \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_PERFMON_DESTROY, struct ethosu_accel_perfmon_destroy)
#define ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_PERFMON_GET_VALUES, struct ethosu_accel_perfmon_get_values)
#define ETHOSU_ACCEL_IOCTL_PERFMON_SET_GLOBAL \
  ETHOSU_ACCEL_IOCTL(ETHOSU_ACCEL_PERFMON_SET_GLOBAL, struct ethosu_accel_perfmon_set_global)

/* The kernel's sizes (x86-64 and arm64 alike: LP64, natural alignment). */
#ifdef __cplusplus
#define ETHOSU_ACCEL_ASSERT(c, m) static_assert(c, m)
#else
#define ETHOSU_ACCEL_ASSERT(c, m) _Static_assert(c, m)
#endif
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_drm_version) == 64, "drm_version");
ETHOSU_ACCEL_ASSERT(offsetof(struct ethosu_drm_version, name_len) == 16, "drm_version.name_len");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_drm_gem_close) == 8, "drm_gem_close");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_drm_get_cap) == 16, "drm_get_cap");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_npu_info) == 16, "drm_ethosu_npu_info");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_dev_query) == 16, "drm_ethosu_dev_query");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_bo_create) == 16, "drm_ethosu_bo_create");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_bo_wait) == 16, "drm_ethosu_bo_wait");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_bo_mmap_offset) == 16, "drm_ethosu_bo_mmap_offset");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_cmdstream_bo_create) == 24, "drm_ethosu_cmdstream_bo_create");
ETHOSU_ACCEL_ASSERT(offsetof(struct ethosu_accel_cmdstream_bo_create, handle) == 16, "cmdstream_bo_create.handle");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_job) == 40, "drm_ethosu_job");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_submit) == 16, "drm_ethosu_submit");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_perfmon_create) == 24, "drm_ethosu_perfmon_create");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_perfmon_destroy) == 4, "drm_ethosu_perfmon_destroy");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_perfmon_get_values) == 16, "drm_ethosu_perfmon_get_values");
ETHOSU_ACCEL_ASSERT(sizeof(struct ethosu_accel_perfmon_set_global) == 8, "drm_ethosu_perfmon_set_global");
ETHOSU_ACCEL_ASSERT(ETHOSU_ACCEL_IOCTL_SUBMIT == 0xc0106445u, "DRM_IOCTL_ETHOSU_SUBMIT");
ETHOSU_ACCEL_ASSERT(ETHOSU_DRM_IOCTL_VERSION == 0xc0406400u, "DRM_IOCTL_VERSION");
ETHOSU_ACCEL_ASSERT(ETHOSU_DRM_IOCTL_GEM_CLOSE == 0x40086409u, "DRM_IOCTL_GEM_CLOSE");
#undef ETHOSU_ACCEL_ASSERT

#ifdef __cplusplus
}
#endif

#endif
