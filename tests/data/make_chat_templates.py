"""Chat templates rendered by Python's jinja2, the reference for core/chat's renderer.

The templates below are written for this test in the manner of each family's own template
(Llama 3.1 / 3.2, Qwen 2.5, Qwen 3, SmolLM2, Mistral v0.3, Phi-3 / 3.5): the same Jinja
constructs on the same paths (BOS handling, a system message taken out of the list, loops
with loop.first / loop.last / loop.index0, namespace() carried out of a loop, a reversed
slice, raise_exception on a bad role order, strip / trim, tojson, selectattr, tool branches
that are parsed but not taken), with their own wording. Two more cover the rest of the subset
(`constructs`) and whitespace control (`whitespace`).

They are rendered the way transformers' apply_chat_template renders: an
ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks and the loopcontrols extension,
raise_exception and strftime_now as globals, tojson as json.dumps(ensure_ascii=False), and the
variables messages, tools=None, documents=None, add_generation_prompt, bos_token, eos_token.
strftime_now reports 2024-07-26 (the C++ side takes the same date as an option).

OUTDIR:
  templates/NAME.jinja      one template each
  conversations.json        the conversations, a list of message lists
  cases.jsonl               {"template", "conversation", "add_generation_prompt", "variables",
                             and "expected" (jinja2's text) or "raised" (raise_exception's
                             message)}
  model/model.gguf, model/hf/   a tiny llama3-shaped model (make_arch.py's writers) whose GGUF
                            carries tokenizer.chat_template and whose folder carries
                            tokenizer_config.json with chat_template, add_bos_token true
  model/expected.json       jinja2's rendering of one system + user turn with that template,
                            and tokenizers' ids of it (added tokens matched, no other BOS);
                            the same for the user turn alone (user_only_*)
  hf_list/                  tokenizer.json + tokenizer_config.json whose chat_template is a
                            list of {name, template}: "default" is the one to use
  hf_none/                  tokenizer.json + tokenizer_config.json without a template
  spm/vocab.gguf            a SentencePiece vocabulary (sentencepiece, Llama's settings) with
                            control pieces [INST] and [/INST] and a Mistral-like template
  spm/expected.json         a system + user turn: jinja2's text and its ids, the text cut at
                            each control piece (leftmost, longest; llama.cpp's parse_special)
                            and every stretch between encoded by sentencepiece
"""
import datetime
import json
import pathlib
import random
import re

import jinja2
import jinja2.ext
import jinja2.sandbox
import numpy as np

import make_arch
import make_tokenizer
from llama_spm import train_llama_bpe

BOS, EOS = "<|endoftext|>", "<|im_start|>"
TODAY = datetime.datetime(2024, 7, 26)

TEMPLATES = {}

# Llama 3.x: BOS written by the template, the system message trimmed and taken out of the
# list, a dated system header (strftime_now when defined), tools described in JSON when given.
TEMPLATES["llama3"] = """{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- if strftime_now is defined %}
        {%- set date_string = strftime_now("%d %b %Y") %}
    {%- else %}
        {%- set date_string = "01 Jan 2024" %}
    {%- endif %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- The system turn is taken out first; it goes into the header below. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}
{%- if builtin_tools is defined or tools is not none %}
    {{- "Environment: ipython\\n" }}
{%- endif %}
{%- if builtin_tools is defined %}
    {{- "Tools: " + builtin_tools | reject("equalto", "code_interpreter") | join(", ") + "\\n\\n" }}
{%- endif %}
{{- "Knowledge up to: 2023-12\\n" }}
{{- "Date today: " + date_string + "\\n\\n" }}
{%- if tools is not none and not tools_in_user_message %}
    {{- "Functions you may call, as JSON:\\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\\n\\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message }}
{{- "<|eot_id|>" }}

{%- if tools_in_user_message and not tools is none %}
    {%- if messages | length != 0 %}
        {%- set first_user_message = messages[0]['content']|trim %}
        {%- set messages = messages[1:] %}
    {%- else %}
        {{- raise_exception("Tools go into the first user message, and there is none.") }}
    {%- endif %}
    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\\n\\n" }}
    {%- endfor %}
    {{- first_user_message + "<|eot_id|>"}}
{%- endif %}

{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("One tool call per turn, please.") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}
        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}
            {{- "<|python_tag|>" + tool_call.name + ".call(" }}
            {%- for arg_name, arg_val in tool_call.arguments | items %}
                {{- arg_name + '="' + arg_val + '"' }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- endif %}
            {%- endfor %}
            {{- ")" }}
        {%- else %}
            {{- '{"name": "' + tool_call.name + '", "parameters": ' }}
            {{- tool_call.arguments | tojson }}
            {{- "}" }}
        {%- endif %}
        {{- "<|eom_id|>" if builtin_tools is defined else "<|eot_id|>" }}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}
"""

# Qwen 2.5: ChatML with a default system turn, tool calls as JSON inside tags, consecutive
# tool results gathered into one user turn.
TEMPLATES["qwen25"] = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are a careful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Functions\\n\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are a careful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""

# Qwen 3: the last real user query found by a reversed walk with a namespace, reasoning
# between <think> tags split out of earlier assistant turns, an empty think block when
# enable_thinking is false.
TEMPLATES["qwen3"] = """{%- if messages[0].role == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' + content + '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}"""

# SmolLM2: ChatML written on one line, a default system turn before the first message.
TEMPLATES["smollm2"] = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a small helpful model.<|im_end|>\\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")

# Mistral v0.3: roles must alternate (checked with a namespace counter, raise_exception
# otherwise); the system message joins the last user turn; tools as a JSON list before it.
TEMPLATES["mistral"] = """{%- if messages[0]["role"] == "system" %}
    {%- set system_message = messages[0]["content"] %}
    {%- set loop_messages = messages[1:] %}
{%- else %}
    {%- set loop_messages = messages %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}
{%- set user_messages = loop_messages | selectattr("role", "equalto", "user") | list %}

{#- Roles alternate user / assistant; tool traffic is not counted. #}
{%- set ns = namespace() %}
{%- set ns.index = 0 %}
{%- for message in loop_messages %}
    {%- if not (message.role == "tool" or message.role == "tool_results" or (message.tool_calls is defined and message.tool_calls is not none)) %}
        {%- if (message["role"] == "user") != (ns.index % 2 == 0) %}
            {{- raise_exception("Turns must go user, assistant, user, ... after an optional system turn.") }}
        {%- endif %}
        {%- set ns.index = ns.index + 1 %}
    {%- endif %}
{%- endfor %}

{{- bos_token }}
{%- for message in loop_messages %}
    {%- if message["role"] == "user" %}
        {%- if tools is not none and (message == user_messages[-1]) %}
            {{- "[AVAILABLE_TOOLS] [" }}
            {%- for tool in tools %}
                {%- set tool = tool.function %}
                {{- '{"type": "function", "function": {' }}
                {%- for key, val in tool.items() if key != "return" %}
                    {%- if val is string %}
                        {{- '"' + key + '": "' + val + '"' }}
                    {%- else %}
                        {{- '"' + key + '": ' + val|tojson }}
                    {%- endif %}
                    {%- if not loop.last %}
                        {{- ", " }}
                    {%- endif %}
                {%- endfor %}
                {{- "}}" }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- else %}
                    {{- "]" }}
                {%- endif %}
            {%- endfor %}
            {{- "[/AVAILABLE_TOOLS]" }}
        {%- endif %}
        {%- if loop.last and system_message is defined %}
            {{- "[INST] " + system_message + "\\n\\n" + message["content"] + "[/INST]" }}
        {%- else %}
            {{- "[INST] " + message["content"] + "[/INST]" }}
        {%- endif %}
    {%- elif message.tool_calls is defined and message.tool_calls is not none %}
        {{- "[TOOL_CALLS] [" }}
        {%- for tool_call in message.tool_calls %}
            {%- set out = tool_call.function|tojson %}
            {{- out[:-1] }}
            {%- if not tool_call.id is defined or tool_call.id|length != 9 %}
                {{- raise_exception("A tool call id has nine characters.") }}
            {%- endif %}
            {{- ', "id": "' + tool_call.id + '"}' }}
            {%- if not loop.last %}
                {{- ", " }}
            {%- else %}
                {{- "]" + eos_token }}
            {%- endif %}
        {%- endfor %}
    {%- elif message["role"] == "assistant" %}
        {{- " " + message["content"]|trim + eos_token}}
    {%- elif message["role"] == "tool_results" or message["role"] == "tool" %}
        {%- if message.content is defined and message.content.content is defined %}
            {%- set content = message.content.content %}
        {%- else %}
            {%- set content = message.content %}
        {%- endif %}
        {{- '[TOOL_RESULTS] {"content": ' + content|string + ", " }}
        {{- '"call_id": "' + message.tool_call_id + '"}[/TOOL_RESULTS]' }}
    {%- else %}
        {{- raise_exception("Only system, user and assistant turns are known here.") }}
    {%- endif %}
{%- endfor %}
"""

# Phi-3 / 3.5: one line, an empty system message skipped, EOS when no reply is asked for.
TEMPLATES["phi3"] = (
    "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}"
    "{{'<|system|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}"
    "{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}"
    "{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}")

# The rest of the subset, one construct a line, run over every conversation.
TEMPLATES["constructs"] = """\
{% set first = messages | first %}{% set last = messages | last %}
first={{ first.role | upper }} last={{ last['role'] | capitalize }} n={{ messages | count }}
{% for m in messages if m.role != 'system' %}[{{ loop.index }}/{{ loop.length }} r{{ loop.revindex }}{{ loop.revindex0 }}{% if loop.previtem is defined %} after {{ loop.previtem.role }}{% endif %}{% if loop.nextitem is defined %} before {{ loop.nextitem.role }}{% endif %}] {{ m.content | length }}{% if loop.index is divisibleby 2 %} even{% elif loop.index is odd %} odd{% endif %}
{% else %}no turns but the system's
{% endfor %}
{% for m in messages %}{% if m.role == 'assistant' %}{% continue %}{% endif %}{{ m.role[0] }}{% if loop.index0 >= 3 %}{% break %}{% endif %}{% endfor %}|
{{ messages | map(attribute='role') | join(',') }} {{ messages | selectattr('role', 'ne', 'user') | map(attribute='role') | list }}
{{ messages | rejectattr('role', 'in', ['system', 'assistant']) | list | length }} {{ [1, 0, 2, none, ''] | select | list }} {{ [1, 2, 3, 4] | reject('even') | list }}
{{ messages[0].content[:5] ~ '|' ~ messages[0].content[-3:] ~ '|' ~ messages[0].content[::2] ~ '|' ~ messages[0].content[1:-1:3] }}
{{ messages[-1].content.split() | length }} {{ messages[-1].content.split(' ', 1) | first }} {{ messages[-1].content.replace(' ', '_', 2) }}
{{ messages[-1].content.find('e') }} {{ messages[-1].content.strip('.! ') }} {{ messages[0].content | trim('xyz.! ') }}
{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 1 + 2 * 3 - 4 }} {{ (1 + 2) * 3 }} {{ 10 - 2 - 3 }} {{ 2.5 * 2 }} {{ 0.1 + 0.2 }} {{ 1e-7 }} {{ 1e20 }} {{ -3 | abs }} {{ '42' | int + 1 }} {{ 'x' | int(7) }}
{{ 'ab' * 3 }} {{ [0] * 3 }} {{ [1, 2] + [3] }} {{ 'a' ~ 1 ~ none ~ true }} {{ none }} {{ true }} {{ [1, 'two', none, false, 2.5, (3, 4), {'k': 'v'}] }} {{ (5,) }}
{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 1 == 1.0 }} {{ true == 1 }} {{ 'b' in 'abc' }} {{ 'z' not in ['a'] }} {{ 'role' in messages[0] }} {{ [1, [2]] == [1, [2]] }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }}
{{ 'yes' if messages | length > 2 else 'no' }} {{ 'kept' if false }}| {{ not none and 0 or 'fallback' }} {{ undefined_name | default('dflt') }} {{ '' | default('empty', true) }} {{ none | d('x') }}
{{ undefined_name is defined }} {{ undefined_name is undefined }} {{ none is none }} {{ 3 is number }} {{ 3 is integer }} {{ 3.0 is float }} {{ 'x' is string }} {{ {} is mapping }} {{ [] is iterable }} {{ 'ab' is sequence }} {{ true is boolean }} {{ false is false }} {{ 'ABC' is upper }} {{ 'abc' is lower }} {{ range is callable }} {{ 'a' is in 'cat' }} {{ 2 is equalto 2 }} {{ 5 is not even }}
{{ {'b': 1, 'a': [1.5, none, true, "q\\"\\n\\u00e9"]} | tojson }} {{ {'b': 1, 'a': {}} | tojson(sort_keys=true) }} {{ [1, {'x': []}] | tojson(indent=2) }} {{ {'a': 1} | tojson(separators=[',', ':']) }}
{% set d = {'one': 1, 'two': 2} %}{{ d.keys() | list }} {{ d.values() | list }} {{ d.items() | list }} {{ d | items | list }} {{ d.get('one') }} {{ d.get('three', 3) }} {{ d.get('four') }} {{ d['two'] }} {{ d.two }} {{ d | list }} {{ d | length }}
{% set ns = namespace(total=0, names=[]) %}{% for m in messages %}{% set ns.total = ns.total + m.content | length %}{% set ns.names = ns.names + [m.role] %}{% endfor %}{{ ns.total }} {{ ns.names | join('/') }}
{% set shadow = 'outer' %}{% for i in range(2) %}{% set shadow = 'inner' ~ i %}{{ shadow }} {% endfor %}{{ shadow }}
{% for a, b in [[1, 'x'], [2, 'y']] %}{{ a }}{{ b }}{% endfor %} {% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {% for c in 'héllo' %}{{ c }}.{% endfor %} {% for i in range(10, 0, -3) %}{{ i }}{% endfor %}
{% set captured %}{% for m in messages %}<{{ m.role }}>{% endfor %}{% endset %}{{ captured | length }}{{ captured }}
{{ 'tab\\there' }} {{ "it's" }} {{ 'say "hi"' }} {{ '\\x41\\101' }} {{ 'one' 'two' }} {{ 'ÀÉ' | length }} {{ 'snow ☃ man'[5] }} {{ '  spaced  ' | trim }}|{{ 'x'.join(['a', 'b']) }} {{ ', '.join(messages | map(attribute='role')) }}
{{ messages | map('length') | list }} {{ messages | map(attribute='role') | map('upper') | list }} {{ 'HeLLo'.lower() }} {{ 'HeLLo'.upper() }} {{ 'a,b'.startswith(('x', 'a')) }} {{ 'abc'.endswith('bc') }}
"""

# Whitespace control: trim_blocks, lstrip_blocks, -/+ markers, comments, CRLF line ends and
# the dropped trailing newline.
TEMPLATES["whitespace"] = (
    "start\r\n  {% if true %}\r\n    kept indent {{ messages | length }}\r\n"
    "  {%- if true %} stripped-left{% endif %}\n"
    "  {%+ if true %}plus keeps spaces{% endif %}\n"
    "  {# a comment on its own line #}\n"
    "text {# inline comment #} after\n"
    "  {#- strip before #}  |  {#- both -#}  |\n"
    "{{- ' var-left' }}  {{ 'var' -}}   \n   next\n"
    "{% for m in messages %}\n"
    "    - {{ m.role }}\n"
    "{% endfor %}\n"
    "{%- for m in messages -%}\n"
    "    {{ m.role }}\n"
    "{%- endfor %}\n"
    "\t{% set x = 1 %}\ttab {{ x }}\n"
    "{% endif %}\n"
    "end\n")

SYSTEM = "You answer briefly and cite the verse."
CONVERSATIONS = [
    [{"role": "user", "content": "Who built the ark?"}],
    [{"role": "system", "content": SYSTEM},
     {"role": "user", "content": "In the beginning?"}],
    [{"role": "system", "content": "  Padded system text.\n\n"},
     {"role": "user", "content": "  Leading and trailing spaces.  \n"},
     {"role": "assistant", "content": "\nA reply with space around it. "},
     {"role": "user", "content": "And again!"}],
    [{"role": "user", "content": "Quotes ' and \" and \\ backslashes\tand tabs\r\nand CRLF."},
     {"role": "assistant", "content": "Unicode: é ß 漢字 🕊️ עברית"},
     {"role": "user", "content": "JSON-looking {\"a\": [1, 2]} and {{ not a tag }} {% nor this %}"}],
    [{"role": "user", "content": "What is 2+2?"},
     {"role": "assistant", "content": "<think>\nAdd two and two.\n</think>\n\nFour."},
     {"role": "user", "content": "And 3+3?"},
     {"role": "assistant", "content": "<think>Three and three.</think>Six."}],
    [{"role": "system", "content": ""},
     {"role": "user", "content": "Empty system message before me."}],
    [{"role": "user", "content": "first"},
     {"role": "user", "content": "two user turns in a row"}],
    [{"role": "system", "content": SYSTEM},
     {"role": "assistant", "content": "An assistant speaks first."}],
]
# Tool calling with real data: two functions as transformers passes them (JSON schema), and
# conversations that call them, once and twice in a turn, with their results.
TOOLS = [
    {"type": "function", "function": {
        "name": "find_verse", "description": "Looks a verse up by book, chapter and verse.",
        "parameters": {"type": "object", "properties": {
            "book": {"type": "string", "description": "e.g. \"Genesis\""},
            "chapter": {"type": "integer"}, "verse": {"type": "integer"}},
            "required": ["book", "chapter"]}}},
    {"type": "function", "function": {
        "name": "count_words", "description": "Counts a word's uses in the text.",
        "parameters": {"type": "object", "properties": {
            "word": {"type": "string"}, "case_sensitive": {"type": "boolean"}},
            "required": ["word"]},
        "return": {"type": "integer"}}},
]
CALL_ONE = {"id": "call00001", "type": "function", "function": {
    "name": "find_verse", "arguments": {"book": "Genesis", "chapter": 1, "verse": 1}}}
CALL_TWO = {"id": "call00002", "type": "function", "function": {
    "name": "count_words", "arguments": {"word": "ark", "case_sensitive": False}}}
TOOL_CONVERSATIONS = [
    [{"role": "system", "content": SYSTEM},
     {"role": "user", "content": "Quote Genesis 1:1."},
     {"role": "assistant", "content": "", "tool_calls": [CALL_ONE]},
     {"role": "tool", "tool_call_id": "call00001",
      "content": "In the beginning God created the heaven and the earth."},
     {"role": "assistant", "content": "\"In the beginning God created the heaven and the earth.\""},
     {"role": "user", "content": "Thanks."}],
    [{"role": "user", "content": "Genesis 1:1, and how often is 'ark' used?"},
     {"role": "assistant", "content": "Two lookups.", "tool_calls": [CALL_ONE, CALL_TWO]},
     {"role": "tool", "tool_call_id": "call00001", "content": "In the beginning..."},
     {"role": "tool", "tool_call_id": "call00002", "content": "26"}],
]
CONVERSATIONS += TOOL_CONVERSATIONS
# Variables beside the standard ones, per template (rendered with and without).
VARIANTS = {
    "qwen3": [{"enable_thinking": False}, {"enable_thinking": True}],
    "llama3": [{"date_string": "02 Feb 2025"}, {"tools": TOOLS},
               {"tools": TOOLS, "tools_in_user_message": False}],
    "qwen25": [{"tools": TOOLS}],
    "mistral": [{"tools": TOOLS}],
}


def environment() -> jinja2.Environment:
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    class Raised(Exception):
        pass

    def raise_exception(message):
        raise Raised(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: TODAY.strftime(fmt)
    env.Raised = Raised
    return env


def render(env, template: str, messages, add_generation_prompt: bool, variables: dict):
    """jinja2's text, or the message raise_exception was called with."""
    try:
        # Set after the standard names, so a variant's tools replace tools=None.
        names = {"messages": messages, "tools": None, "documents": None,
                 "add_generation_prompt": add_generation_prompt, "bos_token": BOS,
                 "eos_token": EOS, **variables}
        text = env.from_string(template).render(**names)
        return {"expected": text}
    except env.Raised as e:
        return {"raised": str(e)}


def write_model(out: pathlib.Path, env) -> None:
    """make_arch's llama3 model with TEMPLATES["llama3"]-like ChatML: GGUF and HF folder."""
    # Qwen 3's switch: with enable_thinking false the reply starts with an empty think block.
    template = ("{{ bos_token }}{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + "
                "m['content'] | trim + '<|endoftext|>' }}{% endfor %}"
                "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
                "{% if enable_thinking is defined and enable_thinking is false %}"
                "{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}{% endif %}")
    fam = make_arch.FAMILIES["llama3"]
    tok = make_arch.make_tokenizer()
    vocab = tok.get_vocab_size(with_added_tokens=True)
    w = make_arch.make_weights(fam, vocab, np.random.default_rng(7))
    model = out / "model"
    model.mkdir(parents=True, exist_ok=True)
    make_arch.write_gguf(model / "model.gguf", fam, w, tok, vocab,
                         extra=lambda writer: writer.add_chat_template(template))
    make_arch.write_hf(model / "hf", make_arch.config_json(fam, vocab), w, tok)
    (model / "hf" / "tokenizer_config.json").write_text(json.dumps(
        {"bos_token": BOS, "eos_token": BOS, "add_bos_token": True, "chat_template": template},
        indent=2))
    messages = [{"role": "system", "content": "Be brief. "}, {"role": "user", "content": "the cache"}]

    def rendered(turns, **kwargs):
        return env.from_string(template).render(messages=turns, add_generation_prompt=True,
                                                bos_token=BOS, eos_token=BOS, tools=None,
                                                **kwargs)

    text, user_only = rendered(messages), rendered(messages[1:])
    no_thinking = rendered(messages, enable_thinking=False)
    (model / "expected.json").write_text(json.dumps({
        "system": messages[0]["content"], "prompt": messages[1]["content"], "text": text,
        "template": template, "ids": tok.encode(text, add_special_tokens=False).ids,
        "user_only_text": user_only,
        "user_only_ids": tok.encode(user_only, add_special_tokens=False).ids,
        "kwargs": {"enable_thinking": False}, "kwargs_text": no_thinking,
        "kwargs_ids": tok.encode(no_thinking, add_special_tokens=False).ids}, indent=2))

    for name, config in [
        ("hf_list", {"chat_template": [{"name": "tool_use", "template": "{{ 'tools' }}"},
                                       {"name": "default", "template": template}]}),
        ("hf_none", {"bos_token": BOS}),
    ]:
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        tok.save(str(folder / "tokenizer.json"))
        (folder / "tokenizer_config.json").write_text(json.dumps(config))


def write_spm(out: pathlib.Path, env) -> None:
    """A SentencePiece vocabulary whose template writes control pieces: they must come out as
    their ids, not spelled in characters."""
    template = ("{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}"
                "{{ '[INST] ' + m['content'] + '[/INST]' }}{% else %}{{ m['content'] + '\\n\\n' }}"
                "{% endif %}{% endfor %}")
    sp = train_llama_bpe(make_tokenizer.corpus(random.Random(5), 2000), 600,
                         character_coverage=0.9995, control_symbols=["[INST]", "[/INST]"])
    folder = out / "spm"
    folder.mkdir(parents=True, exist_ok=True)
    make_tokenizer.write_gguf(sp, folder / "vocab.gguf", chat_template=template)
    messages = [{"role": "system", "content": "Answer from the text."},
                {"role": "user", "content": " the cache [INST]-like words stay [/INST]"}]
    text = env.from_string(template).render(messages=messages, add_generation_prompt=True,
                                            bos_token=sp.IdToPiece(sp.bos_id()),
                                            eos_token=sp.IdToPiece(sp.eos_id()), tools=None)
    controls = sorted((sp.IdToPiece(i) for i in range(sp.GetPieceSize()) if sp.IsControl(i)),
                      key=len, reverse=True)
    ids, done = [], 0
    for m in re.finditer("|".join(map(re.escape, controls)), text):
        if m.start() > done:
            ids += sp.encode(text[done:m.start()])
        ids.append(sp.PieceToId(m.group()))
        done = m.end()
    if done < len(text):
        ids += sp.encode(text[done:])
    (folder / "expected.json").write_text(json.dumps({
        "system": messages[0]["content"], "prompt": messages[1]["content"], "text": text,
        "ids": ids}, indent=2))


def generate(out: pathlib.Path) -> None:
    env = environment()
    (out / "templates").mkdir(parents=True, exist_ok=True)
    for name, text in TEMPLATES.items():
        # Bytes as they are: the whitespace template's CRLF must reach the C++ side.
        (out / "templates" / f"{name}.jinja").write_bytes(text.encode())
    (out / "conversations.json").write_text(json.dumps(CONVERSATIONS, ensure_ascii=False))
    counts = {"expected": 0, "raised": 0}
    with open(out / "cases.jsonl", "w") as fh:
        for name, text in TEMPLATES.items():
            for variables in [{}] + VARIANTS.get(name, []):
                for i, messages in enumerate(CONVERSATIONS):
                    for add in (True, False):
                        case = {"template": name, "conversation": i, "add_generation_prompt": add,
                                "variables": variables, **render(env, text, messages, add, variables)}
                        counts["expected" if "expected" in case else "raised"] += 1
                        fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    if counts["raised"] == 0 or counts["expected"] == 0:
        raise SystemExit("make_chat_templates: expected both renderings and raised errors")
    write_model(out, env)
    write_spm(out, env)
