#include "core/model/weight_file.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "core/io/huge_page_region.h"
#include "core/model/available_memory.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"

namespace kvw {
namespace {

// A file's bytes in a huge-page region, released when the last weight lets go of it.
class HugePageBytes final : public ByteSource {
public:
    HugePageBytes(std::string path, HugePageRegion region)
        : path_(std::move(path)), region_(std::move(region)) {}

    std::span<const uint8_t> bytes() const override { return {region_.data(), region_.size()}; }
    const std::string& name() const override { return path_; }

private:
    std::string path_;
    HugePageRegion region_;
};

}  // namespace

std::shared_ptr<const ByteSource> read_into_huge_pages(const std::string& path) {
    const RegularFile file = open_model_file(path);
    const int fd = file.fd();
    const auto fail = [&](const std::string& why) {
        throw ModelError(ModelErrorKind::CannotOpen, path, why);
    };
    const size_t size = size_t(file.size());
    HugePageRegion region;
    try {
        region = HugePageRegion(size);
    } catch (const std::system_error& e) {
        fail(e.what());
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    // A reader per core (up to 8), each on its share of whole huge pages: most of the time goes
    // into the first touch of the fresh pages, which proceeds in parallel.
    uint8_t* out = region.data();
    std::string error;
    std::mutex error_mutex;
    const auto read_range = [&](size_t begin, size_t end) {
        for (size_t done = begin; done < end;) {
            const ssize_t got =
                ::pread(fd, out + done, std::min<size_t>(end - done, 64 << 20), off_t(done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                const std::lock_guard lock(error_mutex);
                error = "read failed at byte " + std::to_string(done) + ": " +
                        (got < 0 ? std::strerror(errno) : "the file shrank");
                return;
            }
            done += size_t(got);
        }
    };
    const size_t readers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
    const size_t huge_pages = (size + kHugePageBytes - 1) / kHugePageBytes;
    const size_t share = (huge_pages + readers - 1) / readers * kHugePageBytes;
    std::vector<std::thread> threads;
    for (size_t begin = share; begin < size; begin += share) {
        try {
            threads.emplace_back(read_range, begin, std::min(size, begin + share));
        } catch (const std::system_error&) {  // no thread to be had: this one reads the share
            read_range(begin, std::min(size, begin + share));
        }
    }
    read_range(0, std::min(size, share));
    for (std::thread& t : threads) t.join();
    if (!error.empty()) fail(error);
    return std::make_shared<HugePageBytes>(path, std::move(region));
}

bool read_weights_into_memory(uint64_t file_bytes, uint64_t available_bytes) {
    return file_bytes <= available_bytes / 2;
}

std::shared_ptr<const ByteSource> open_weight_file(const std::string& path) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    const uint64_t available = available_memory_bytes();
    if (!ec && read_weights_into_memory(size, available)) {
        const auto started = std::chrono::steady_clock::now();
        auto source = read_into_huge_pages(path);
        spdlog::info(
            "{}: {:.1f} MiB read into huge pages in {:.2f} s", path,
            double(size) / (1024.0 * 1024.0),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        return source;
    }
    if (!ec)
        spdlog::info("{}: memory-mapped ({:.1f} MiB is more than half of the {:.1f} MiB available)",
                     path, double(size) / (1024.0 * 1024.0), double(available) / (1024.0 * 1024.0));
    return map_file(path);
}

}  // namespace kvw
