#include "core/session/soak_actions.h"

#include <algorithm>
#include <climits>
#include <numeric>

namespace kvw {
namespace {

std::vector<int32_t> random_tokens(std::mt19937_64& rng, int n, int vocab) {
    std::vector<int32_t> ids(static_cast<size_t>(n));
    for (int32_t& id : ids) id = uniform(rng, 0, vocab - 1);
    return ids;
}

// Empty (every layer) more often than not; otherwise a sorted non-empty subset.
std::vector<int> random_layers(std::mt19937_64& rng, int n_layers) {
    std::vector<int> layers;
    if (uniform(rng, 0, 9) < 6) return layers;
    for (int l = 0; l < n_layers; ++l)
        if (uniform(rng, 0, 1)) layers.push_back(l);
    if (layers.empty()) layers.push_back(uniform(rng, 0, n_layers - 1));
    return layers;
}

std::vector<int> affected(const std::vector<int>& layers, int n_layers) {
    if (!layers.empty()) return layers;
    std::vector<int> all(static_cast<size_t>(n_layers));
    std::iota(all.begin(), all.end(), 0);
    return all;
}

struct Taken {
    int first, last;
    std::vector<int> layers;  // affected
};

bool meets(const Taken& a, const Taken& b) {
    if (a.last < b.first || b.last < a.first) return false;
    return std::any_of(a.layers.begin(), a.layers.end(), [&](int l) {
        return std::find(b.layers.begin(), b.layers.end(), l) != b.layers.end();
    });
}

int first_position(const Action& a) {
    if (const auto* r = std::get_if<ReplacePairAction>(&a.op)) return r->original_pos1;
    if (const auto* d = std::get_if<DeleteAction>(&a.op)) return d->pos;
    return std::get<InsertAction>(a.op).pos;
}

}  // namespace

int SoakSequence::max_rows() const {
    int m = 0;
    for (const auto& layer : tokens) m = std::max(m, int(layer.size()));
    return m;
}

ActionList valid_actions(std::mt19937_64& rng, const SoakSequence& seq, int min_rows, int room,
                         bool with_adds) {
    const int n_layers = int(seq.tokens.size());
    ActionList list;
    std::vector<Taken> taken;
    // Rows each layer gains and loses over the list: the peak stays under rows + gains.
    std::vector<int> gain(size_t(n_layers), 0), loss(size_t(n_layers), 0);
    for (int n = uniform(rng, 1, 3); n > 0; --n) {
        const std::vector<int> layers = random_layers(rng, n_layers);
        const std::vector<int> aff = affected(layers, n_layers);
        int rows = INT_MAX;
        for (const int l : aff) rows = std::min(rows, seq.rows(l));
        const int kind = uniform(rng, 0, 2);  // delete, insert, replace_pair
        const int n_tokens = uniform(rng, 1, 3);
        Action action{DeleteAction{}, layers};
        Taken span{0, 0, aff};
        int delta = 0;
        if (kind == 0 && rows >= 1) {
            span.first = span.last = uniform(rng, 0, rows - 1);
            action.op = DeleteAction{span.first};
            delta = -1;
        } else if (kind == 1) {
            const bool bos =
                std::any_of(aff.begin(), aff.end(), [&](int l) { return seq.starts_with_bos(l); });
            span.first = span.last = uniform(rng, bos ? 1 : 0, rows);
            action.op = InsertAction{span.first, random_tokens(rng, n_tokens, seq.vocab_size)};
            delta = n_tokens;
        } else if (kind == 2 && rows >= 2) {
            span.first = uniform(rng, 0, rows - 2);
            span.last = uniform(rng, span.first + 1, std::min(rows - 1, span.first + 4));
            action.op = ReplacePairAction{span.first, span.last,
                                          random_tokens(rng, n_tokens, seq.vocab_size)};
            delta = n_tokens - 2;
        } else {
            continue;
        }
        const bool fits = std::all_of(aff.begin(), aff.end(), [&](int l) {
            const size_t i = size_t(l);
            return seq.rows(l) + gain[i] + std::max(delta, 0) + room <= seq.capacity &&
                   seq.rows(l) - loss[i] + std::min(delta, 0) >= min_rows;
        });
        const bool clash =
            std::any_of(taken.begin(), taken.end(), [&](const Taken& t) { return meets(t, span); });
        if (!fits || clash) continue;
        for (const int l : aff) (delta > 0 ? gain : loss)[size_t(l)] += std::abs(delta);
        taken.push_back(span);
        list.push_back(std::move(action));
    }
    if (with_adds) {
        int most = 0;
        for (int l = 0; l < n_layers; ++l) most = std::max(most, seq.rows(l) + gain[size_t(l)]);
        for (int n = uniform(rng, 0, 2); n > 0 && most + 1 + room <= seq.capacity; --n, ++most)
            list.push_back(Action{AddAction{uniform(rng, 0, seq.vocab_size - 1)}, {}});
    }
    return list;
}

ActionList invalid_actions(std::mt19937_64& rng, const SoakSequence& seq) {
    const int n_layers = int(seq.tokens.size());
    const int vocab = seq.vocab_size;
    ActionList list = valid_actions(rng, seq, 0, 0, false);
    Action bad{DeleteAction{0}, {}};
    switch (uniform(rng, 0, 9)) {
        case 0: bad.op = DeleteAction{seq.max_rows() + uniform(rng, 0, 5)}; break;
        case 1: bad.op = DeleteAction{-uniform(rng, 1, INT_MAX)}; break;
        case 2: bad.layers = {uniform(rng, 0, 1) ? -1 : n_layers + uniform(rng, 0, 3)}; break;
        case 3: bad.layers = {0, 0}; break;
        case 4:
            bad.op = InsertAction{0, {uniform(rng, 0, 1) ? -1 : vocab + uniform(rng, 0, 9)}};
            break;
        case 5: {
            const int p = uniform(rng, 0, std::max(seq.max_rows() - 1, 0));
            bad.op = ReplacePairAction{p, p - uniform(rng, 0, p), {1}};
            break;
        }
        case 6:
            if (uniform(rng, 0, 1))
                bad.op = ReplacePairAction{0, 1, {}};
            else
                bad.op = InsertAction{0, {}};
            break;
        case 7:
            if (!list.empty()) {
                bad = list[size_t(uniform(rng, 0, int(list.size()) - 1))];
            } else {
                list.push_back(bad);  // two deletes of row 0
            }
            break;
        case 8: bad.op = InsertAction{0, std::vector<int32_t>(size_t(seq.capacity) + 1, 1)}; break;
        default: bad.op = InsertAction{INT_MAX, {1}}; break;
    }
    list.insert(list.begin() + uniform(rng, 0, int(list.size())), std::move(bad));
    return list;
}

void apply_to_reference(SoakSequence& seq, const ActionList& list) {
    const int n_layers = int(seq.tokens.size());
    std::vector<const Action*> edits;
    for (const Action& a : list)
        if (!std::holds_alternative<AddAction>(a.op)) edits.push_back(&a);
    std::stable_sort(edits.begin(), edits.end(), [](const Action* a, const Action* b) {
        return first_position(*a) > first_position(*b);
    });
    for (const Action* a : edits) {
        for (const int l : affected(a->layers, n_layers)) {
            std::vector<int32_t>& s = seq.tokens[size_t(l)];
            if (const auto* r = std::get_if<ReplacePairAction>(&a->op)) {
                s.erase(s.begin() + r->original_pos2);
                s.erase(s.begin() + r->original_pos1);
                s.insert(s.begin() + r->original_pos1, r->new_token_ids.begin(),
                         r->new_token_ids.end());
            } else if (const auto* in = std::get_if<InsertAction>(&a->op)) {
                s.insert(s.begin() + in->pos, in->token_ids.begin(), in->token_ids.end());
            } else {
                s.erase(s.begin() + std::get<DeleteAction>(a->op).pos);
            }
        }
    }
    for (const Action& a : list)
        if (const auto* add = std::get_if<AddAction>(&a.op))
            for (auto& s : seq.tokens) s.push_back(add->token_id);
}

int uniform(std::mt19937_64& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}

}  // namespace kvw
