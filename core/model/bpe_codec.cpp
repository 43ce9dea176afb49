#include "core/model/bpe_codec.h"

#include <algorithm>
#include <cstdio>
#include <queue>
#include <stdexcept>

#include "core/model/byte_level.h"
#include "core/model/pre_tokenizer.h"
#include "core/model/utf8.h"

namespace kvw {
namespace {

uint64_t pair_key(int32_t left, int32_t right) {
    return (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
}

bool is_added(TokenType type) {
    return type == TokenType::Control || type == TokenType::UserDefined;
}

// The bytes piece `id` stands for (see BpeCodec::decode).
std::string piece_bytes(const Vocabulary& vocab, int32_t id) {
    const std::string& piece = vocab.pieces[size_t(id)];
    if (is_added(vocab.types[size_t(id)])) return piece;
    return byte_level_bytes(piece).value_or(piece);
}

// One piece of the word being merged, in a linked list; id -1 once merged into its left
// neighbour.
struct Symbol {
    int32_t id = 0;
    int prev = -1;
    int next = -1;
};

// A candidate merge of symbol `left` with its right neighbour, stale once either has changed.
struct Candidate {
    int32_t rank = 0;
    int left = 0;
    int32_t left_id = 0;
    int32_t right_id = 0;
};

// Lowest rank first; among equal ranks the leftmost pair.
struct CandidateOrder {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
    }
};

}  // namespace

BpeCodec::BpeCodec(const Vocabulary& vocab) {
    if (!vocab.pre_tokenizer) throw std::invalid_argument("byte-level BPE without a pre-tokenizer");
    const int n = vocab.size();
    for (int id = 0; id < n; ++id) {
        piece_to_id_.emplace(vocab.pieces[size_t(id)], id);  // the first of duplicates wins
        if (is_added(vocab.types[size_t(id)]) && !vocab.pieces[size_t(id)].empty())
            added_by_first_byte_[uint8_t(vocab.pieces[size_t(id)][0])].push_back(id);
    }
    for (auto& ids : added_by_first_byte_)
        std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
            return vocab.pieces[size_t(a)].size() > vocab.pieces[size_t(b)].size();
        });
    for (int byte = 0; byte < 256; ++byte) {
        const auto it = piece_to_id_.find(std::string(byte_level_char(uint8_t(byte))));
        if (it == piece_to_id_.end())
            throw std::invalid_argument("byte " + std::to_string(byte) + " has no piece");
        byte_to_id_[size_t(byte)] = it->second;
    }
    for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
        const BpeMerge& m = vocab.merges[rank];
        if (m.left < 0 || m.left >= n || m.right < 0 || m.right >= n)
            throw std::invalid_argument("merge " + std::to_string(rank) +
                                        " outside the vocabulary");
        const auto joined =
            piece_to_id_.find(vocab.pieces[size_t(m.left)] + vocab.pieces[size_t(m.right)]);
        if (joined == piece_to_id_.end())
            throw std::invalid_argument("merge " + std::to_string(rank) + " makes no piece");
        merges_.emplace(pair_key(m.left, m.right), Merge{int32_t(rank), joined->second});
    }
}

int32_t BpeCodec::added_token_at(const Vocabulary& vocab, std::string_view text) const {
    for (const int32_t id : added_by_first_byte_[uint8_t(text[0])])
        if (text.starts_with(vocab.pieces[size_t(id)])) return id;
    return -1;
}

std::vector<int32_t> BpeCodec::encode(const Vocabulary& vocab, std::string_view text) const {
    std::vector<int32_t> out;
    auto encode_span = [&](std::string_view span) {
        for (const std::string_view word : vocab.pre_tokenizer->split(span))
            encode_word(vocab, word, out);
    };
    size_t start = 0;  // text[start, pos) is waiting for the pre-tokenizer
    for (size_t pos = 0; pos < text.size();) {
        const int32_t added = added_token_at(vocab, text.substr(pos));
        if (added < 0) {
            ++pos;
            continue;
        }
        encode_span(text.substr(start, pos - start));
        out.push_back(added);
        pos += vocab.pieces[size_t(added)].size();
        start = pos;
    }
    encode_span(text.substr(start));
    return out;
}

void BpeCodec::encode_word(const Vocabulary& vocab, std::string_view word,
                           std::vector<int32_t>& out) const {
    if (vocab.ignore_merges) {
        std::string spelled;
        for (const char c : word) spelled += byte_level_char(uint8_t(c));
        if (const auto it = piece_to_id_.find(spelled); it != piece_to_id_.end()) {
            out.push_back(it->second);
            return;
        }
    }
    std::vector<Symbol> symbols(word.size());
    for (size_t i = 0; i < word.size(); ++i)
        symbols[i] = {byte_to_id_[uint8_t(word[i])], int(i) - 1,
                      i + 1 < word.size() ? int(i) + 1 : -1};

    std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> agenda;
    auto consider = [&](int left) {
        if (left < 0 || symbols[size_t(left)].next < 0) return;
        const int32_t a = symbols[size_t(left)].id;
        const int32_t b = symbols[size_t(symbols[size_t(left)].next)].id;
        if (const auto it = merges_.find(pair_key(a, b)); it != merges_.end())
            agenda.push({it->second.rank, left, a, b});
    };
    for (int i = 0; i + 1 < int(symbols.size()); ++i) consider(i);
    while (!agenda.empty()) {
        const Candidate top = agenda.top();
        agenda.pop();
        Symbol& left = symbols[size_t(top.left)];
        if (left.id != top.left_id || left.next < 0) continue;
        Symbol& right = symbols[size_t(left.next)];
        if (right.id != top.right_id) continue;
        left.id = merges_.at(pair_key(top.left_id, top.right_id)).result;
        right.id = -1;
        left.next = right.next;
        if (left.next >= 0) symbols[size_t(left.next)].prev = top.left;
        consider(left.prev);
        consider(top.left);
    }
    for (int i = word.empty() ? -1 : 0; i >= 0; i = symbols[size_t(i)].next)
        out.push_back(symbols[size_t(i)].id);
}

std::string BpeCodec::decode(const Vocabulary& vocab, std::span<const int32_t> ids) const {
    std::string bytes;
    for (const int32_t id : ids) bytes += piece_bytes(vocab, id);
    return bytes;
}

std::string BpeCodec::piece_text(const Vocabulary& vocab, int32_t id) const {
    if (is_added(vocab.types[size_t(id)])) return vocab.pieces[size_t(id)];
    const std::string bytes = piece_bytes(vocab, id);
    std::string shown;
    for (std::string_view rest = bytes; !rest.empty();) {
        size_t n = valid_utf8_length(rest);
        if (n == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "<0x%02X>", unsigned(uint8_t(rest[0])));
            shown += hex;
            n = 1;
        } else {
            shown += rest.substr(0, n);
        }
        rest.remove_prefix(n);
    }
    return shown;
}

}  // namespace kvw
