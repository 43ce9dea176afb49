#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Python's str semantics over UTF-8 text, as far as chat templates reach them: Jinja runs on
// Python, so lengths, indices and slices count code points, strip() and split() use
// str.isspace(), and printed floats follow float.__repr__. Every string given here is valid
// UTF-8 (render_chat checks its inputs; literals are decoded into it).
namespace kvw::python_text {

// Code points of valid UTF-8 text, and back.
std::u32string decode(std::string_view utf8);
std::string encode(std::u32string_view text);
void append_code_point(std::string& out, char32_t c);

// str.isspace() of one code point.
bool is_space(char32_t c);

// str.strip / lstrip / rstrip: without `chars`, whitespace (is_space).
std::string strip(std::string_view s, const std::optional<std::string>& chars, bool left,
                  bool right);
// str.split(sep, maxsplit): without `sep`, runs of whitespace, empty pieces dropped.
// An empty `sep` is refused by the caller (Python raises ValueError).
std::vector<std::string> split(std::string_view s, const std::optional<std::string>& sep,
                               long maxsplit);
// str.replace(old, new, count); count < 0: all.
std::string replace(std::string_view s, std::string_view from, std::string_view to, long count);
// str.find: the code-point index of the first occurrence, -1 when absent.
long find(std::string_view s, std::string_view needle);

// repr() of a str whose code points are all ASCII (the caller refuses others: Python's choice
// of which to escape depends on the Unicode database).
std::string repr_ascii_string(std::string_view s);
// float.__repr__: the shortest digits that read back to `x`, fixed notation for decimal
// exponents -4..15, "1e-05" style otherwise, "inf", "nan".
std::string repr_float(double x);

// Whether every byte is ASCII.
bool is_ascii(std::string_view s);

}  // namespace kvw::python_text
