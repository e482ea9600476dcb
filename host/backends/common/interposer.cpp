#include "host/backends/common/interposer.h"

namespace ethosu::interpose {

bool Interposer::claims_path(int, const char*) { return false; }
std::optional<int> Interposer::open(int, const char*, int) { return std::nullopt; }
std::optional<FILE*> Interposer::fopen(const char*, const char*) { return std::nullopt; }
std::optional<int> Interposer::stat(const char*, bool, struct stat&) { return std::nullopt; }
std::optional<int> Interposer::access(const char*, int) { return std::nullopt; }
std::optional<ssize_t> Interposer::readlink(const char*, char*, size_t) { return std::nullopt; }

std::optional<int> Interposer::ioctl(int, unsigned long, void*) { return std::nullopt; }
std::optional<void*> Interposer::mmap(void*, size_t, int, int, int, off_t) { return std::nullopt; }
std::optional<ssize_t> Interposer::read(int, void*, size_t) { return std::nullopt; }
std::optional<ssize_t> Interposer::write(int, const void*, size_t) { return std::nullopt; }
std::optional<int> Interposer::stat_fd(int, struct stat&) { return std::nullopt; }

std::optional<DIR*> Interposer::opendir(const char*) { return std::nullopt; }
std::optional<struct dirent*> Interposer::readdir(DIR*) { return std::nullopt; }
std::optional<struct dirent64*> Interposer::readdir64(DIR*) { return std::nullopt; }
bool Interposer::rewinddir(DIR*) { return false; }
std::optional<int> Interposer::closedir(DIR*) { return std::nullopt; }
std::optional<int> Interposer::dirfd(DIR*) { return std::nullopt; }

void Interposer::opened(const char*, int) {}
void Interposer::closing(int) {}
void Interposer::replacing(int) {}
void Interposer::duplicated(int, int) {}
void Interposer::closed_range(unsigned, unsigned) {}

}  // namespace ethosu::interpose
