#include "widgets/record_story.h"

#include <algorithm>

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
            part.brightness = layer.brightness[size_t(part.row)];
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

}  // namespace kvw
