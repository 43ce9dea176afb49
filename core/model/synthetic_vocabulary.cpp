#include "core/model/synthetic_vocabulary.h"
#include "core/model/vocabulary.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvw {
namespace {

// Common English words; every prefix of each becomes a piece, with and without "▁".
constexpr std::string_view kWords =
    "the of and to in is was for on that with as by at from his her they this have had "
    "not are but which one were all their there been has when who will more no if out so "
    "said what up its about into than them can only other new some could time these two "
    "may then do first any my now such like our over man me even most made after also "
    "did many before must through back years where much your way well down should "
    "because each just those people how too little state good very make world still own "
    "see men work long get here between both life being under never day same another "
    "know while last might us great old year off come since against go came right used "
    "take three himself few house use during without again place around however home "
    "small found thought went say part once general high upon school every does got left "
    "number course war until always away something fact though water less public put "
    "think almost hand enough far took head yet system better set told nothing night end "
    "why called eyes find going look asked later knew point next city business give "
    "group young days let room side social given present several order national second "
    "possible rather face among form important often things looking early white case "
    "become large big need four within felt children along saw best ever least power "
    "light thing token model cache layer attention text word language question answer "
    "value story fire earth tree river mountain road car book letter paper music song "
    "game play run walk talk speak read write open close begin start stop turn move keep "
    "hold bring carry follow learn teach help show try call ask tell feel seem leave "
    "mean want love hate hope wish red green blue black yellow short tall fast slow hot "
    "cold warm happy sad bad wrong true false late low near ";

std::vector<std::string_view> words() {
    std::vector<std::string_view> out;
    std::set<std::string_view> seen;
    for (size_t pos = 0; pos < kWords.size();) {
        const size_t end = std::min(kWords.find(' ', pos), kWords.size());
        const std::string_view word = kWords.substr(pos, end - pos);
        if (!word.empty() && seen.insert(word).second) out.push_back(word);
        pos = end + 1;
    }
    return out;
}

size_t code_points(std::string_view s) {
    size_t n = 0;
    for (const char c : s) n += (uint8_t(c) & 0xC0) != 0x80;
    return n;
}

class VocabularyBuilder {
public:
    void add(std::string piece, TokenType type) {
        if (!known_.insert(piece).second) return;
        // Longer pieces score higher, so the merge prefers whole words to their fragments.
        const bool scored = type == TokenType::Normal;
        vocab_.scores.push_back(scored ? float(code_points(piece)) : 0.0f);
        vocab_.pieces.push_back(std::move(piece));
        vocab_.types.push_back(type);
    }
    int size() const { return vocab_.size(); }
    Vocabulary take() { return std::move(vocab_); }

private:
    Vocabulary vocab_;
    std::set<std::string> known_;
};

// Everything but the padding.
VocabularyBuilder base_vocabulary() {
    VocabularyBuilder b;
    b.add("<unk>", TokenType::Unknown);  // ids 0, 1, 2 as Vocabulary's defaults expect
    b.add("<s>", TokenType::Control);
    b.add("</s>", TokenType::Control);
    static const char* kHex = "0123456789ABCDEF";
    for (int byte = 0; byte < 256; ++byte)
        b.add(std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + ">", TokenType::Byte);
    b.add(std::string(kSpaceMarker), TokenType::Normal);
    for (char c = '!'; c <= '~'; ++c) b.add(std::string(1, c), TokenType::Normal);
    for (const std::string_view word : words()) {
        for (size_t k = 1; k <= word.size(); ++k)
            b.add(std::string(kSpaceMarker) + std::string(word.substr(0, k)), TokenType::Normal);
        for (size_t k = 2; k <= word.size(); ++k)
            b.add(std::string(word.substr(0, k)), TokenType::Normal);
    }
    return b;
}

}  // namespace

int synthetic_vocabulary_min_size() { return base_vocabulary().size(); }

Vocabulary synthetic_vocabulary(int size) {
    VocabularyBuilder b = base_vocabulary();
    if (size < b.size())
        throw std::invalid_argument("synthetic vocabulary needs at least " +
                                    std::to_string(b.size()) + " pieces, asked for " +
                                    std::to_string(size));
    // Padding: "▁" + two words, in a fixed order; reachable by merging "▁first" and "second".
    const std::vector<std::string_view> list = words();
    for (size_t i = 0; i < list.size() && b.size() < size; ++i)
        for (size_t j = 0; j < list.size() && b.size() < size; ++j)
            b.add(std::string(kSpaceMarker) + std::string(list[i]) + std::string(list[j]),
                  TokenType::Normal);
    if (b.size() < size)
        throw std::invalid_argument("synthetic vocabulary can hold at most " +
                                    std::to_string(b.size()) + " pieces, asked for " +
                                    std::to_string(size));
    return b.take();
}

}  // namespace kvw
