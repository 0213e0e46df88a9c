#include "tests/integration/fs_fixtures.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rtgate::test {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_all(path)); }

void write_all(const std::string& path, const std::string& content) {
  std::ofstream(path) << content;
}

char node_type(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return '-';
  if (S_ISREG(st.st_mode)) return 'f';
  if (S_ISLNK(st.st_mode)) return 'l';
  if (S_ISCHR(st.st_mode)) return 'c';
  if (S_ISFIFO(st.st_mode)) return 'p';
  if (S_ISDIR(st.st_mode)) return 'd';
  if (S_ISBLK(st.st_mode)) return 'b';
  return '?';
}

bool is_char_device(const std::string& path, unsigned maj, unsigned min) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == maj &&
         minor(st.st_rdev) == min;
}

std::string make_char_device(const std::string& path, unsigned maj, unsigned min) {
  if (mknod(path.c_str(), S_IFCHR | 0666, makedev(maj, min)) != 0) {
    return "mknod " + path + ": " + std::strerror(errno);
  }
  return "";
}

TmpfsMount::TmpfsMount(std::string dir, const std::string& size) : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
  const std::string opts = "size=" + size + ",mode=1777";
  if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, opts.c_str()) != 0) {
    error_ = "mount tmpfs on " + dir_ + ": " + std::strerror(errno);
  } else {
    mounted_ = true;
  }
}

TmpfsMount::~TmpfsMount() {
  if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
}

void TmpfsMount::fill(const std::string& name) const {
  const int fd = open((dir_ + "/" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  const std::string block(4096, 'x');
  while (write(fd, block.data(), block.size()) > 0) {
  }
  // The last partial page: write byte by byte until ENOSPC.
  while (write(fd, "x", 1) > 0) {
  }
  close(fd);
}

FifoReader::FifoReader(std::string path) : path_(std::move(path)) {
  mkfifo(path_.c_str(), 0666);
  // Non-blocking open, then poll: a FIFO that is replaced before anyone writes to it must not
  // leave this thread blocked in open() for ever. (Linux reports POLLHUP only once a writer has
  // come and gone, so a FIFO nobody opened yet just times out.)
  fd_ = open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  reader_ = std::thread([this] {
    if (fd_ < 0) return;
    char buf[65536];
    for (;;) {
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      const int ready = poll(&p, 1, 50);
      if (ready == 0) {
        if (stop_.load()) break;
        continue;
      }
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n > 0) {
        got_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EAGAIN) {
        break;  // EOF: the writer closed it
      }
    }
  });
}

std::string FifoReader::finish() {
  if (reader_.joinable()) {
    stop_.store(true);
    reader_.join();
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return got_;
}

FifoReader::~FifoReader() { finish(); }

}  // namespace rtgate::test
