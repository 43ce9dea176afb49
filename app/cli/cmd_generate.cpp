// kvw generate: prompt in, sampled tokens out (ids and text), deterministic for a seed; with
// --logits K also the K largest logits each token was sampled from; with --chat the prompt is
// one user turn (after an optional --system turn) in the model's own chat template.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/chat/chat_prompt.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "core/session/generator.h"
#include "policy_eval.h"
#include "sampling_args.h"
#include "top_logits.h"

namespace kvw::cli {
namespace {

struct Step {
    int32_t token = 0;
    std::vector<RankedLogit> top;  // of the logits the token was sampled from
};

void print_ids(const char* label, std::span<const int32_t> ids) {
    std::printf("%s", label);
    for (const int32_t id : ids) std::printf(" %d", id);
    std::printf("\n");
}

nlohmann::json steps_json(const std::vector<Step>& steps, const Tokenizer& tokenizer) {
    nlohmann::json out = nlohmann::json::array();
    for (const Step& s : steps) {
        nlohmann::json top = nlohmann::json::array();
        for (const RankedLogit& r : s.top)
            top.push_back(
                {{"id", r.id}, {"piece", tokenizer.piece_text(r.id)}, {"logit", r.logit}});
        out.push_back({{"token", s.token}, {"piece", tokenizer.piece_text(s.token)}, {"top", top}});
    }
    return out;
}

void print_steps(const std::vector<Step>& steps, const Tokenizer& tokenizer) {
    for (size_t i = 0; i < steps.size(); ++i) {
        std::printf("step %zu: %d '%s' |", i, steps[i].token,
                    tokenizer.piece_text(steps[i].token).c_str());
        for (const RankedLogit& r : steps[i].top)
            std::printf(" %d '%s' %.4f", r.id, tokenizer.piece_text(r.id).c_str(), double(r.logit));
        std::printf("\n");
    }
}

// --chat-date YYYY-MM-DD, else today's date (UTC): what the template's strftime_now reports.
CalendarDate chat_date(const CliArgs& args) {
    if (args.has("chat-date")) {
        const std::string text = args.get("chat-date");
        CalendarDate d;
        char tail = 0;
        if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c", &d.year, &d.month, &d.day, &tail) != 3 ||
            text.size() != 10 || d.month < 1 || d.month > 12 || d.day < 1 || d.day > 31)
            throw UsageError("--chat-date takes a date as YYYY-MM-DD, not '" + text + "'");
        return d;
    }
    return utc_date_today();
}

// --chat-template-kwargs: a JSON object (or @FILE holding one) whose entries the template sees
// as variables, as llama.cpp's option of that name and transformers' apply_chat_template
// keyword arguments give them: {"enable_thinking": false}, {"tools": [...]}.
std::vector<std::pair<std::string, jinja::Value>> chat_template_kwargs(const CliArgs& args) {
    if (!args.has("chat-template-kwargs")) return {};
    std::string text = args.get("chat-template-kwargs");
    if (text.starts_with("@")) text = read_text_file(text.substr(1));
    jinja::Value value;
    try {
        value = chat_value_from_json(text);
    } catch (const ChatTemplateError& e) {
        throw UsageError(std::string("--chat-template-kwargs: ") + e.what());
    }
    if (!value.is<jinja::DictRef>())
        throw UsageError(
            "--chat-template-kwargs takes a JSON object, such as "
            "'{\"enable_thinking\": false}'");
    return value.dict_data().entries;
}

// The prompt's ids: as text after BOS, or with --chat as a turn in the model's template.
std::vector<int32_t> prompt_ids(const CliArgs& args, const Model& model) {
    if (!args.has("chat")) return model.tokenizer.encode(args.get("prompt"), true);
    ChatTurn turn{args.get("prompt"), std::nullopt, chat_date(args), chat_template_kwargs(args)};
    if (args.has("system")) turn.system = args.get("system");
    try {
        const ChatPrompt prompt = render_chat_prompt(model.tokenizer, turn);
        spdlog::info("chat prompt ({} tokens): {}", prompt.ids.size(), prompt.text);
        return prompt.ids;
    } catch (const ChatTemplateError& e) {
        throw std::runtime_error(model.source + ": " + e.what());
    }
}

int run_generate(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const SamplingParams sampling = sampling_from_args(args);
    const long n = long(args.get_count("n", INT32_MAX));
    const long k = long(args.get_count("logits", INT32_MAX));
    // Refused before the model loads: options --chat would read, given without it.
    if (!args.has("chat"))
        for (const char* option : {"system", "chat-date", "chat-template-kwargs"})
            if (args.has(option))
                throw UsageError(std::string("--") + option + " is only read with --chat");
    const auto model = load_model(args.get("model"));

    const std::vector<int32_t> prompt = prompt_ids(args, *model);
    if (prompt.empty()) throw UsageError("the prompt gives no tokens (and the model adds no BOS)");
    const long needed = long(prompt.size()) + n;
    if (needed > model->config.max_context)
        throw UsageError("prompt (" + std::to_string(prompt.size()) + " tokens) + n (" +
                         std::to_string(n) + ") exceeds the model's context of " +
                         std::to_string(model->config.max_context));

    const auto backend = create_backend(args.get("backend"));
    const Transformer transformer(model, *backend, needed);
    StateOptions state;  // the workbench's defaults: contiguous F32 cache, guard on
    state.capacity = needed;
    Generator generator(transformer, sampling, state);
    generator.prefill(prompt);
    std::vector<Step> steps;
    std::vector<int32_t> generated;
    for (long i = 0; i < n; ++i) {
        std::vector<RankedLogit> top = top_logits(generator.logits(), int(k));
        const int32_t token = generator.decode_next();
        generated.push_back(token);
        steps.push_back({token, std::move(top)});
        if (token == model->tokenizer.eos_id() && !args.has("ignore-eos")) break;
    }
    std::vector<int32_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    const GenerationTimings& t = generator.timings();
    spdlog::info("{}: prefill {} tokens in {:.3f} s, decode {} tokens in {:.3f} s ({:.1f} tok/s)",
                 backend->name(), t.prefill_items, t.prefill_seconds, t.decode_items,
                 t.decode_seconds, t.decode_seconds > 0 ? t.decode_items / t.decode_seconds : 0.0);

    if (args.has("json")) {
        nlohmann::json out = {{"model", model->source},
                              {"backend", backend->name()},
                              {"prompt_ids", prompt},
                              {"generated_ids", generated},
                              {"text", model->tokenizer.decode(all)},
                              {"timings",
                               {{"prefill_tokens", t.prefill_items},
                                {"prefill_seconds", t.prefill_seconds},
                                {"decode_tokens", t.decode_items},
                                {"decode_seconds", t.decode_seconds}}}};
        if (k > 0) out["steps"] = steps_json(steps, model->tokenizer);
        print_json(out);
        return 0;
    }
    print_ids("prompt ids:", prompt);
    print_ids("generated ids:", generated);
    std::printf("text: %s\n", model->tokenizer.decode(all).c_str());
    if (k > 0) print_steps(steps, model->tokenizer);
    return 0;
}

}  // namespace

CommandSpec generate_command() {
    OptionTable options = {
        model_option(),
        {"prompt", "TEXT", "", "the prompt, after BOS (none: BOS alone)"},
        {"chat", "", "", "the prompt as one user turn in the model's chat template"},
        {"system", "TEXT", "", "with --chat: a system turn before the user's"},
        {"chat-date", "YYYY-MM-DD", "",
         "with --chat: the date the template is told; without it today's (UTC)"},
        {"chat-template-kwargs", "JSON", "",
         "with --chat: more variables for the template, a JSON object or @FILE "
         "(e.g. '{\"enable_thinking\": false}', '{\"tools\": [...]}')"},
        {"n", "N", "32", "tokens to generate"},
    };
    for (const OptionSpec& o : sampling_options()) options.push_back(o);
    options.push_back(backend_option("auto"));
    options.push_back({"ignore-eos", "", "", "go on after the end-of-sequence token"});
    options.push_back({"logits", "K", "0", "also print the K largest logits of every step"});
    options.push_back(json_option());
    return {"generate", "", "prompt in, sampled tokens out (deterministic for a seed)", options,
            run_generate};
}

}  // namespace kvw::cli
