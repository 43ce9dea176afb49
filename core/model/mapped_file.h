#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/io/regular_file.h"

namespace kvw {

// Read-only bytes of a model file: a memory map of a file on disk, or a buffer made in memory
// (the synthetic models). Loaders hold it through a shared_ptr and weights that point into it
// keep it alive via WeightTensor::owner.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    virtual std::span<const uint8_t> bytes() const = 0;
    virtual const std::string& name() const = 0;  // the path, or a label like "synthetic:tiny"
    // Throws ModelError(Truncated) when bytes() can no longer be read: a mapped file that
    // another process truncated, where reading past its new end would raise SIGBUS. Bytes held
    // in memory never change, so by default there is nothing to check.
    virtual void check_readable() const {}
};

// Throws ModelError(CannotOpen) when the file cannot be opened or mapped, or is not a regular
// file (a FIFO would block the open forever; a device such as /dev/zero never ends). A descriptor
// stays open with the mapping, so check_readable() can fstat the very file mapped
// (ARCHITECTURE §5.1).
std::shared_ptr<const ByteSource> map_file(const std::string& path);
// A model file (weights, a gate, a gist net, a config) opened as RegularFile does, its faults as
// ModelError(CannotOpen): the one open of every file a model loader reads.
RegularFile open_model_file(const std::string& path);
std::shared_ptr<const ByteSource> bytes_in_memory(std::vector<uint8_t> bytes, std::string name);
}  // namespace kvw
