#include "core/model/architecture.h"

#include <array>

namespace kvw {
namespace {

constexpr std::array<std::string_view, 2> kLlamaClasses = {"LlamaForCausalLM",
                                                           "MistralForCausalLM"};
constexpr std::array<std::string_view, 1> kQwen2Classes = {"Qwen2ForCausalLM"};
constexpr std::array<std::string_view, 1> kQwen3Classes = {"Qwen3ForCausalLM"};
constexpr std::array<std::string_view, 1> kPhi3Classes = {"Phi3ForCausalLM"};

// llama.cpp's rope types: NORM (adjacent pairs, Q/K permuted by its converter) for llama, NEOX
// (the two halves, rows as Hugging Face keeps them) for qwen2, qwen3 and phi3.
constexpr std::array<Architecture, 4> kArchitectures = {{
    {"llama", kLlamaClasses, RopeLayout::Interleaved, false, false, false, false},
    {"qwen2", kQwen2Classes, RopeLayout::HalfSplit, true, false, false, false},
    {"qwen3", kQwen3Classes, RopeLayout::HalfSplit, false, true, false, false},
    {"phi3", kPhi3Classes, RopeLayout::HalfSplit, false, false, true, true},
}};

}  // namespace

std::span<const Architecture> architectures() { return kArchitectures; }

const Architecture* find_gguf_architecture(std::string_view name) {
    for (const Architecture& a : kArchitectures)
        if (a.name == name) return &a;
    return nullptr;
}

const Architecture* find_hf_architecture(std::string_view hf_class) {
    for (const Architecture& a : kArchitectures)
        for (std::string_view c : a.hf_classes)
            if (c == hf_class) return &a;
    return nullptr;
}

std::string supported_gguf_architectures() {
    std::string out;
    for (const Architecture& a : kArchitectures)
        out += (out.empty() ? "" : ", ") + std::string(a.name);
    return out;
}

std::string supported_hf_architectures() {
    std::string out;
    for (const Architecture& a : kArchitectures)
        for (std::string_view c : a.hf_classes) out += (out.empty() ? "" : ", ") + std::string(c);
    return out;
}

}  // namespace kvw
