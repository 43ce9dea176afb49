#include "core/cache/batch_splice_layout.h"
#include "core/cache/indirection_layout.h"
#include "core/cache/kv_layout.h"
#include "core/cache/kv_store.h"
#include "core/cache/ring_layout.h"

namespace kvw {

std::unique_ptr<KvLayout> make_kv_layout(CacheLayout layout, int n_layers, int kv_dim, int capacity,
                                         KvStorage storage, RingOptions ring) {
    switch (layout) {
        case CacheLayout::BatchSplice:
            return std::make_unique<BatchSpliceLayout>(n_layers, kv_dim, capacity, storage);
        case CacheLayout::Indirection:
            return std::make_unique<IndirectionLayout>(n_layers, kv_dim, capacity, storage);
        case CacheLayout::Ring:
            return std::make_unique<RingLayout>(n_layers, kv_dim, capacity, storage, ring);
        case CacheLayout::Contiguous: break;
    }
    return std::make_unique<KvStore>(n_layers, kv_dim, capacity, storage);
}

}  // namespace kvw
