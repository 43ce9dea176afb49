#include "core/model/weights.h"

namespace kvw {

size_t ModelWeights::total_bytes() const {
    size_t total = token_embd.bytes() + output_norm.bytes();
    if (output.data != token_embd.data) total += output.bytes();  // tied embeddings count once
    for (const LayerWeights& l : layers) {
        for (const WeightTensor* t :
             {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            total += t->bytes();
    }
    return total;
}

}  // namespace kvw
