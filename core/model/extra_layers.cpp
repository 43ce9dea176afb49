#include "core/model/extra_layers.h"

#include <charconv>
#include <limits>

namespace kvw {
namespace {

std::optional<int64_t> layer_of(std::string_view name, std::string_view prefix) {
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    int64_t layer = 0;
    const auto [stop, error] = std::from_chars(begin, end, layer);
    if (stop == begin || stop == end || *stop != '.') return std::nullopt;
    return error == std::errc::result_out_of_range ? std::numeric_limits<int64_t>::max() : layer;
}

}  // namespace

std::optional<ExtraLayerTensor> find_extra_layer(const std::vector<std::string>& names,
                                                 std::string_view prefix, int n_layers) {
    std::optional<ExtraLayerTensor> deepest;
    for (const std::string& name : names) {
        const std::optional<int64_t> layer = layer_of(name, prefix);
        if (!layer || *layer < n_layers) continue;
        const bool deeper = !deepest || *layer > deepest->layer ||
                            (*layer == deepest->layer && name < deepest->name);
        if (deeper) deepest = ExtraLayerTensor{*layer, name};
    }
    return deepest;
}

}  // namespace kvw
