#pragma once
#include <string>
#include <string_view>

#include "core/model/tokenizer.h"

namespace kvw {

// Reads a tokenizer in the Hugging Face "tokenizers" format (tokenizer.json: a BPE model with
// vocab {piece: id}, merges, added_tokens) into a Vocabulary of one of two kinds.
//
// Byte-level BPE (the pre-tokenizer is or ends in ByteLevel: GPT-2, Llama 3, Qwen, SmolLM):
// read by hf_byte_level.h; added tokens are Control when special, UserDefined otherwise; BOS
// is tokenizer_config.json's bos_token, else the post-processor template's first special
// token, else none; EOS tokenizer_config.json's eos_token or none; add_bos as
// tokenizer_config.json says, else whether the template holds the BOS.
//
// SentencePiece (otherwise: byte_fallback, and either the legacy Prepend("▁") +
// Replace(" ", "▁") normalizer or the Metaspace pre-tokenizer), merged by score.
// Scores: HF BPE merges the adjacent pair of lowest merge rank; SentencePiece merges the pair
// whose joined piece has the highest score. A piece made by merge rank r gets score -r, so the
// two orders agree. Pieces no merge produces (single characters) score below every merge;
// byte pieces ("<0xAB>") and added tokens score 0 with their own TokenType. BOS/EOS come from
// tokenizer_config.json when given (bos_token, eos_token, add_bos_token), otherwise from the
// added tokens "<s>" and "</s>".
//
// The chat template is tokenizer_config.json's chat_template: a string, or the entry named
// "default" of a list of {name, template}.
//
// Throws ModelError(BadTokenizer) naming the file for anything it cannot represent.
Vocabulary parse_hf_tokenizer_json(std::string_view tokenizer_json, const std::string& file,
                                   std::string_view tokenizer_config_json = {},
                                   const std::string& config_file = {});

// Reads FOLDER/tokenizer.json and, when present, FOLDER/tokenizer_config.json; a
// FOLDER/chat_template.jinja (how transformers 4.47 on saves it) is the chat template in
// preference to tokenizer_config.json's.
Vocabulary load_hf_tokenizer(const std::string& folder);

}  // namespace kvw
