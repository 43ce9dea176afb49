// Chat templates (core/chat): the input is a template, rendered over a small conversation with
// a date, as `kvw generate --chat` would. A ChatTemplateError is the expected refusal; any
// other exception, a crash or a sanitizer report is a finding.
#include "core/chat/chat_template.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::vector<kvw::ChatMessage> conversation = {{"system", "Be brief."},
                                                               {"user", "Who built the ark?"},
                                                               {"assistant", "Noah."},
                                                               {"user", "And then?"}};
    kvw::ChatTemplateOptions options;
    options.bos_token = "<s>";
    options.eos_token = "</s>";
    options.today = kvw::CalendarDate{2024, 7, 26};
    kvw::fuzz::accept_typed_errors<kvw::ChatTemplateError>(
        [&] { (void)kvw::render_chat(kvw::fuzz::as_text(data, size), conversation, options); });
    return 0;
}
