#include "widgets/record_story.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kvw {

const char* row_status_text(RowStatus status) {
    switch (status) {
        case RowStatus::NeverHeld: return "never held";
        case RowStatus::Live: return "live";
        case RowStatus::Removed: return "removed";
        case RowStatus::Collapsed: return "under a gist";
    }
    return "?";
}

std::vector<RecordInLayer> record_story(const Frame& frame, int64_t id) {
    if (id < 0 || id >= int64_t(frame.ledger.size())) return {};
    const LedgerRecord& record = frame.ledger[size_t(id)];
    std::vector<RecordInLayer> story;
    story.reserve(frame.layers.size());
    for (size_t l = 0; l < frame.layers.size(); ++l) {
        const LayerFrame& layer = frame.layers[l];
        RecordInLayer part;
        part.layer = int(l);
        if (l < record.removal.size()) part.removal = record.removal[l];
        const auto it = std::find(layer.pos2ledger.begin(), layer.pos2ledger.end(), id);
        if (it != layer.pos2ledger.end()) {
            part.row = int(it - layer.pos2ledger.begin());
            part.brightness = layer.brightness(size_t(part.row));
            part.rope_pos = layer.rope_pos[size_t(part.row)];
            if (frame.drift_measured && size_t(part.row) < layer.drift.size())
                part.drift = layer.drift[size_t(part.row)];
        }
        // A frame without statuses (built by hand) takes them from the rows.
        part.status = l < record.status.size()
                          ? record.status[l]
                          : (part.row >= 0 ? RowStatus::Live : RowStatus::NeverHeld);
        part.agrees = (part.status == RowStatus::Live) == (part.row >= 0);
        story.push_back(part);
    }
    return story;
}

std::vector<RecordTick> record_ticks(const Frame& frame, int64_t id) {
    if (id < 0 || id >= int64_t(frame.ledger.size())) return {};
    const LedgerRecord& record = frame.ledger[size_t(id)];
    std::vector<RecordTick> ticks{
        {record.born_tick, std::string("born (") + entry_kind_name(record.kind) + ")", {}}};
    // Ordered by tick, then reason: one entry per moment, layers ascending within it.
    std::map<std::pair<int64_t, std::string>, std::vector<int>> left;
    for (size_t l = 0; l < record.removal.size(); ++l) {
        const Removal& r = record.removal[l];
        if (r.tick >= 0) left[{r.tick, removal_reason_name(r.cause.reason)}].push_back(int(l));
    }
    for (auto& [key, layers] : left) ticks.push_back({key.first, key.second, std::move(layers)});
    return ticks;
}

std::string layer_runs_text(const std::vector<int>& layers) {
    std::string text;
    for (size_t i = 0; i < layers.size();) {
        size_t j = i;
        while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
        if (!text.empty()) text += ", ";
        text += std::to_string(layers[i]);
        if (j > i) text += "–" + std::to_string(layers[j]);
        i = j + 1;
    }
    return (layers.size() == 1 ? "layer " : "layers ") + text;
}

}  // namespace kvw
