#include "core/cache/batch_splice_layout.h"
#include "core/cache/indirection_layout.h"
#include "core/cache/kv_layout.h"
#include "core/cache/kv_store.h"
#include "core/cache/ring_layout.h"

namespace kvw {

std::unique_ptr<KvLayout> make_kv_layout(CacheLayout layout, int n_layers, int kv_dim, int capacity,
                                         KvStorage storage, RingOptions ring, KvRowDevice& device) {
    switch (layout) {
        case CacheLayout::BatchSplice:
            return std::make_unique<BatchSpliceLayout>(n_layers, kv_dim, capacity, storage, device);
        case CacheLayout::Indirection:
            return std::make_unique<IndirectionLayout>(n_layers, kv_dim, capacity, storage,
                                                       IndirectionLayout::kMaxDeadFraction, device);
        case CacheLayout::Ring:
            return std::make_unique<RingLayout>(n_layers, kv_dim, capacity, storage, ring, device);
        case CacheLayout::Contiguous: break;
    }
    return std::make_unique<KvStore>(n_layers, kv_dim, capacity, storage, device);
}

}  // namespace kvw
