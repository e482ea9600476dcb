// What a process finds of /dev/accel/accel0 before it opens it, as on an i.MX 93 with the mainline driver: the
// node's status, the /dev/accel directory and the node's sysfs entries. Mesa's drm-shim answers the same
// questions for GPUs; here the answers are those of the accel subsystem and nothing the kernel would not show.
//
// Contract:
//  * The node is a character device, major 261 (ACCEL_MAJOR), minor 0, mode 0666, owned by root; the status of
//    an open descriptor is the node's. /dev/accel is a directory (the host's own when it has one) whose listing
//    starts with accel0 (the host's own accel0 is hidden).
//  * sysfs, under /sys/dev/char/261:0 and /sys/class/accel/accel0 (both links to the class device): `uevent`
//    (MAJOR, MINOR, DEVNAME=accel/accel0, DEVTYPE=accel_minor), `dev` ("261:0"), `subsystem` -> class/accel,
//    `device` -> the platform device, whose `uevent` (DRIVER=ethosu, OF_NAME, OF_FULLNAME, OF_COMPATIBLE_*),
//    `modalias`, `of_node/compatible` ("fsl,imx93-npu\0arm,ethos-u65\0"), `of_node/name`, `driver` and
//    `subsystem` (bus/platform) links are there. Files read-only, as the kernel's attributes. Any other path
//    under those two prefixes does not exist: in particular `device/drm`, whose presence libdrm takes for a DRM
//    node, since an accel node is not one.
//  * ours(dirfd, path) says whether a path is answered here (absolute paths only; /dev/accel only when the host
//    has none). The path functions take such a path and return what the libc call returns, with errno.
//  * The directory functions are the shim's directory stream hooks (host/backends/common/interposer.h): they
//    answer for the /dev/accel listing and return std::nullopt (rewind_dir: false) for any other directory, which
//    costs one string comparison (open_dir) or, while no listing is open, one atomic load (the others).
// The platform device's place in the tree (soc@0/4a900000.npu) and the driver name follow the i.MX 93 device
// tree and the driver's platform_driver name as read from their sources, not from a board.
#pragma once

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>

namespace ethosu::accel::node {

inline constexpr const char* kPath = "/dev/accel/accel0";
inline constexpr unsigned kAccelMajor = 261;

bool is_node(const char* path);
bool ours(int dirfd, const char* path);

// Status of `path` (following the last link when `follow`): 0 with `status` filled, or -1 with errno ENOENT.
int stat_path(const char* path, bool follow, struct stat& status);
int access_path(const char* path, int mode);
ssize_t read_link(const char* path, char* buf, size_t size);
// A read-only descriptor holding a sysfs file's contents; -1 with errno (ENOENT, EACCES for writing, EISDIR).
int open_sysfs(const char* path, int flags);

// The /dev/accel listing.
std::optional<DIR*> open_dir(const char* name);
std::optional<struct dirent*> read_dir(DIR* dir);
std::optional<struct dirent64*> read_dir64(DIR* dir);
bool rewind_dir(DIR* dir);
std::optional<int> close_dir(DIR* dir);
std::optional<int> dir_fd(DIR* dir);

}  // namespace ethosu::accel::node
