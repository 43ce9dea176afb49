#include "core/model/spm_codec.h"

#include <algorithm>
#include <cstdio>
#include <queue>
#include <utility>

#include "core/model/utf8.h"

namespace kvw {
namespace {

constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";   // U+FFFD
constexpr std::string_view kUnknownSurface = " \xE2\x81\x87 ";  // sentencepiece's " ⁇ "

// "<0xAB>" -> 0xAB, or -1 when the piece is not spelled like a byte piece.
int parse_byte_piece(const std::string& piece) {
    unsigned value = 0;
    char tail = 0;
    if (piece.size() != 6 || std::sscanf(piece.c_str(), "<0x%2X%c", &value, &tail) != 2 ||
        tail != '>')
        return -1;
    return int(value);
}

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    for (size_t hit; (hit = text.find(from, pos)) != std::string_view::npos;
         pos = hit + from.size()) {
        out.append(text.substr(pos, hit - pos));
        out.append(to);
    }
    out.append(text.substr(pos));
    return out;
}

// Pieces that the merge may produce; sentencepiece keeps exactly these in its piece table and
// reaches unknown, control and byte pieces only through their own paths.
bool is_mergeable(TokenType type) {
    return type == TokenType::Normal || type == TokenType::UserDefined || type == TokenType::Unused;
}

// One symbol of the text being merged: a byte range of the normalised text in a linked list.
struct Symbol {
    size_t begin = 0;
    size_t size = 0;  // 0 once merged into its left neighbour
    int prev = -1;
    int next = -1;
    bool frozen = false;  // a user-defined piece: never merged with its neighbours
};

// A candidate merge of two adjacent symbols; stale once either side has changed size.
struct Bigram {
    float score = 0.0f;
    int left = 0;
    int right = 0;
    size_t size = 0;
};

// Highest score first; among equal scores the leftmost pair (sentencepiece's agenda order).
struct BigramOrder {
    bool operator()(const Bigram& a, const Bigram& b) const {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    }
};

}  // namespace

SpmCodec::SpmCodec(const Vocabulary& vocab) {
    const size_t n = vocab.pieces.size();
    std::fill(std::begin(byte_to_id_), std::end(byte_to_id_), -1);
    for (size_t id = 0; id < n; ++id) {
        const std::string& piece = vocab.pieces[id];
        const TokenType type = vocab.types[id];
        if (type == TokenType::Byte) {
            const int byte = parse_byte_piece(piece);
            if (byte >= 0 && byte_to_id_[byte] < 0) byte_to_id_[byte] = int32_t(id);
        } else if (is_mergeable(type)) {
            piece_to_id_.emplace(piece, int32_t(id));  // the first of duplicate pieces wins
            if (type == TokenType::UserDefined) user_defined_.push_back(piece);
        }
    }
}

std::vector<int32_t> SpmCodec::encode(const Vocabulary& vocab, std::string_view text) const {
    std::vector<int32_t> out;
    if (text.empty()) return out;  // sentencepiece adds no space prefix to an empty text

    const std::string normalized = std::string(vocab.add_space_prefix ? kSpaceMarker : "") +
                                   replace_all(text, " ", kSpaceMarker);
    const std::string_view norm = normalized;

    // Split into characters (user-defined pieces as whole, frozen symbols); a malformed byte
    // becomes a symbol of its own and later falls back to its byte piece.
    std::vector<Symbol> symbols;
    for (size_t pos = 0; pos < norm.size();) {
        Symbol s;
        s.begin = pos;
        for (const std::string& piece : user_defined_)
            if (piece.size() > s.size && norm.substr(pos).starts_with(piece)) s.size = piece.size();
        s.frozen = s.size > 0;
        if (!s.frozen) s.size = std::max<size_t>(1, valid_utf8_length(norm.substr(pos)));
        s.prev = int(symbols.size()) - 1;
        s.next = pos + s.size < norm.size() ? int(symbols.size()) + 1 : -1;
        symbols.push_back(s);
        pos += s.size;
    }

    auto text_of = [&](const Symbol& s) { return norm.substr(s.begin, s.size); };
    auto find_piece = [&](std::string_view piece) -> int32_t {
        const auto it = piece_to_id_.find(std::string(piece));
        return it == piece_to_id_.end() ? -1 : it->second;
    };

    // Unused pieces may be merged through but are split back into the halves that made them.
    std::unordered_map<std::string, std::pair<std::string_view, std::string_view>> rev_merge;
    std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> agenda;
    auto add_bigram = [&](int left, int right) {
        if (left < 0 || right < 0 || symbols[left].frozen || symbols[right].frozen) return;
        const std::string_view piece =
            norm.substr(symbols[left].begin, symbols[left].size + symbols[right].size);
        const int32_t id = find_piece(piece);
        if (id < 0) return;
        agenda.push({vocab.scores[size_t(id)], left, right, piece.size()});
        if (vocab.types[size_t(id)] == TokenType::Unused)
            rev_merge[std::string(piece)] = {text_of(symbols[left]), text_of(symbols[right])};
    };

    for (size_t i = 1; i < symbols.size(); ++i) add_bigram(int(i) - 1, int(i));
    while (!agenda.empty()) {
        const Bigram top = agenda.top();
        agenda.pop();
        Symbol& left = symbols[size_t(top.left)];
        Symbol& right = symbols[size_t(top.right)];
        if (left.size == 0 || right.size == 0 || left.size + right.size != top.size) continue;
        left.size += right.size;
        right.size = 0;
        left.next = right.next;
        if (right.next >= 0) symbols[size_t(right.next)].prev = top.left;
        add_bigram(left.prev, top.left);
        add_bigram(top.left, left.next);
    }

    const bool has_all_bytes =
        std::all_of(std::begin(byte_to_id_), std::end(byte_to_id_), [&](int32_t id) {
            return id >= 0 && id < vocab.size() && vocab.types[size_t(id)] == TokenType::Byte;
        });
    auto emit = [&](auto&& self, std::string_view piece) -> void {
        const int32_t id = find_piece(piece);
        if (id >= 0 && vocab.types[size_t(id)] == TokenType::Unused) {
            if (const auto it = rev_merge.find(std::string(piece)); it != rev_merge.end()) {
                self(self, it->second.first);
                self(self, it->second.second);
                return;
            }
        }
        if (id >= 0) {
            out.push_back(id);
        } else if (has_all_bytes) {
            for (const char c : piece) out.push_back(byte_to_id_[uint8_t(c)]);
        } else if (out.empty() || out.back() != vocab.unk_id) {
            out.push_back(vocab.unk_id);  // like sentencepiece, a run of unknowns is one unk
        }
    };
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[size_t(i)].next)
        emit(emit, text_of(symbols[size_t(i)]));
    return out;
}

std::string SpmCodec::decode(const Vocabulary& vocab, std::span<const int32_t> ids) const {
    // Follows sentencepiece's DecodeIds: controls vanish, a run of byte pieces becomes its
    // UTF-8 text (each malformed byte U+FFFD), and the first piece's "▁" that encode() added
    // is dropped unless text was already produced.
    std::string text;
    std::string bytes;
    auto flush_bytes = [&] {
        std::string_view rest = bytes;
        while (!rest.empty()) {
            const size_t n = valid_utf8_length(rest);
            if (n == 0) {
                text.append(kReplacementChar);
                rest.remove_prefix(1);
            } else {
                text.append(rest.substr(0, n));
                rest.remove_prefix(n);
            }
        }
        bytes.clear();
    };

    bool expect_prefix_space = vocab.add_space_prefix;
    bool prefix_space_consumed = false;
    for (const int32_t id : ids) {
        const TokenType type = vocab.types[size_t(id)];
        std::string_view piece = vocab.pieces[size_t(id)];
        if (type == TokenType::Byte) {
            const int byte = parse_byte_piece(vocab.pieces[size_t(id)]);
            if (byte >= 0) {
                bytes.push_back(char(byte));
                continue;
            }
        }
        flush_bytes();
        if (prefix_space_consumed || !text.empty()) expect_prefix_space = false;
        prefix_space_consumed = false;
        if (type == TokenType::Control) continue;
        if (type == TokenType::Unknown) {
            text.append(kUnknownSurface);
            continue;
        }
        if (expect_prefix_space && piece.starts_with(kSpaceMarker)) {
            piece.remove_prefix(kSpaceMarker.size());
            prefix_space_consumed = true;
        }
        text.append(replace_all(piece, kSpaceMarker, " "));
    }
    flush_bytes();
    return text;
}

std::string SpmCodec::piece_text(const Vocabulary& vocab, int32_t id) const {
    const std::string& piece = vocab.pieces[size_t(id)];
    const TokenType type = vocab.types[size_t(id)];
    if (type == TokenType::Byte || type == TokenType::Control || type == TokenType::Unknown)
        return piece;
    return replace_all(piece, kSpaceMarker, " ");
}

}  // namespace kvw
