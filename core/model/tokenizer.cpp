#include "core/model/tokenizer.h"

#include <array>
#include <stdexcept>
#include <utility>

namespace kvw {
namespace {

std::variant<SpmCodec, BpeCodec> codec_for(const Vocabulary& vocab) {
    switch (vocab.kind) {
        case TokenizerKind::SentencePiece: return SpmCodec(vocab);
        case TokenizerKind::ByteLevelBpe: return BpeCodec(vocab);
    }
    throw std::invalid_argument("unknown tokenizer kind");
}

}  // namespace

Tokenizer::Tokenizer(Vocabulary vocab) : vocab_(std::move(vocab)) {
    const size_t n = vocab_.pieces.size();
    if (vocab_.scores.size() != n || vocab_.types.size() != n)
        throw std::invalid_argument("vocabulary has " + std::to_string(n) + " pieces but " +
                                    std::to_string(vocab_.scores.size()) + " scores and " +
                                    std::to_string(vocab_.types.size()) + " types");
    codec_ = codec_for(vocab_);
}

void Tokenizer::check_id(int32_t id) const {
    if (id < 0 || id >= size())
        throw std::out_of_range("token id " + std::to_string(id) + " outside the vocabulary");
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool at_sequence_start) const {
    std::vector<int32_t> ids =
        std::visit([&](const auto& c) { return c.encode(vocab_, text); }, codec_);
    if (at_sequence_start && vocab_.add_bos && vocab_.bos_id >= 0)
        ids.insert(ids.begin(), vocab_.bos_id);
    return ids;
}

std::vector<int32_t> Tokenizer::encode_with_controls(std::string_view text) const {
    if (vocab_.kind == TokenizerKind::ByteLevelBpe) return encode(text, false);
    // Control pieces by their first byte: Mistral v0.3 has ~770 of them.
    std::array<std::vector<int32_t>, 256> controls;
    for (size_t id = 0; id < vocab_.pieces.size(); ++id)
        if (vocab_.types[id] == TokenType::Control && !vocab_.pieces[id].empty())
            controls[uint8_t(vocab_.pieces[id][0])].push_back(int32_t(id));
    std::vector<int32_t> ids;
    auto encode_stretch = [&](std::string_view stretch) {
        const std::vector<int32_t> part = encode(stretch, false);
        ids.insert(ids.end(), part.begin(), part.end());
    };
    size_t done = 0;
    for (size_t pos = 0; pos < text.size(); ++pos) {
        int32_t found = -1;
        for (const int32_t id : controls[uint8_t(text[pos])]) {
            const std::string& piece = vocab_.pieces[size_t(id)];
            if ((found < 0 || piece.size() > vocab_.pieces[size_t(found)].size()) &&
                text.substr(pos).starts_with(piece))
                found = id;
        }
        if (found < 0) continue;
        encode_stretch(text.substr(done, pos - done));
        ids.push_back(found);
        done = pos + vocab_.pieces[size_t(found)].size();
        pos = done - 1;
    }
    encode_stretch(text.substr(done));
    return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
    for (const int32_t id : ids) check_id(id);
    return std::visit([&](const auto& c) { return c.decode(vocab_, ids); }, codec_);
}

std::string Tokenizer::piece_text(int32_t id) const {
    check_id(id);
    return std::visit([&](const auto& c) { return c.piece_text(vocab_, id); }, codec_);
}

}  // namespace kvw
