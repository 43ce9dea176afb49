#pragma once
#include <span>
#include <string>

namespace kvw {

struct ForwardOutput;

// NaN and infinity caught where they are made (ARCHITECTURE §7, issue 26 item 4). A model, a
// GistNet or a gate whose weights are finite but huge passes the loaders' finite checks and
// overflows only in use; the NaN then hides (std::max and every comparison skip it), so the
// sampled token, the rows a policy evicts and the drift read go wrong while the invariants
// pass. Each throws StateError(NonFinite, primitive, detail), the detail naming the layer and
// the source.

// `values`, made by `source` for `layer` (-1: no layer; the logits).
void require_finite(std::span<const float> values, const char* primitive, int layer,
                    const std::string& source);
// Every layer's K and V of a forward pass, then its logits (the last hidden state's): the
// first non-finite value found names its layer and tensor.
void require_finite(const ForwardOutput& out, const char* primitive, const std::string& source);

}  // namespace kvw
