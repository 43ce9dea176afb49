#include "core/chat/jinja_evaluator.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

enum class Flow { Normal, Break, Continue };

double to_double(const Value& v) {
    return v.is<double>() ? v.as<double>() : double(as_integer(v, "arithmetic"));
}

[[noreturn]] void bad_operands(const char* op, const Value& a, const Value& b) {
    fault(Kind::Type, std::string("operator '") + op + "'",
          "unsupported operand types " + type_name(a) + " and " + type_name(b));
}

[[noreturn]] void overflow(const char* op) {
    fault(Kind::Limit, std::string("operator '") + op + "'",
          "the integer result does not fit in 64 bits");
}

// a OP b on 64-bit integers, refused when Python's unbounded result would not fit.
template <typename F>
int64_t checked(F builtin_overflow, int64_t a, int64_t b, const char* op) {
    int64_t r = 0;
    if (builtin_overflow(a, b, &r)) overflow(op);
    return r;
}
bool add_overflows(int64_t a, int64_t b, int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool sub_overflows(int64_t a, int64_t b, int64_t* r) { return __builtin_sub_overflow(a, b, r); }
bool mul_overflows(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }

// Python's floor division and modulo on integers (the quotient rounds toward minus infinity,
// the remainder takes the divisor's sign).
int64_t floor_divide(int64_t a, int64_t b) {
    if (a == INT64_MIN && b == -1) overflow("//");
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t modulo(int64_t a, int64_t b) {
    if (b == -1) return 0;
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// A string or list repeated n times ("ab" * 3, [0] * 4).
Value repeat(const Value& seq, int64_t n) {
    n = std::max<int64_t>(n, 0);
    if (seq.is<std::string>()) {
        const std::string& s = seq.as<std::string>();
        if (!s.empty() && n > kMaxBuiltItems / int64_t(s.size()))
            fault(Kind::Limit, "operator '*'", "the repeated text is too long");
        std::string out;
        for (int64_t i = 0; i < n; ++i) out += s;
        return out;
    }
    const ListData& list = *seq.as<ListRef>();
    if (!list.items.empty() && n > kMaxBuiltItems / int64_t(list.items.size()))
        fault(Kind::Limit, "operator '*'", "the repeated list is too long");
    std::vector<Value> out;
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), list.items.begin(), list.items.end());
    return Value::list(std::move(out), list.tuple);
}

Value arithmetic(BinaryOp op, const Value& a, const Value& b) {
    const bool numbers = a.is_number() && b.is_number();
    const bool floats = numbers && (a.is<double>() || b.is<double>());
    switch (op) {
        case BinaryOp::Add: {
            if (floats) return to_double(a) + to_double(b);
            if (numbers) return checked(add_overflows, as_integer(a, ""), as_integer(b, ""), "+");
            if (a.is<std::string>() && b.is<std::string>())
                return a.as<std::string>() + b.as<std::string>();
            if (a.is<ListRef>() && b.is<ListRef>() &&
                a.as<ListRef>()->tuple == b.as<ListRef>()->tuple) {
                std::vector<Value> items = a.as<ListRef>()->items;
                const auto& more = b.as<ListRef>()->items;
                items.insert(items.end(), more.begin(), more.end());
                return Value::list(std::move(items), a.as<ListRef>()->tuple);
            }
            bad_operands("+", a, b);
        }
        case BinaryOp::Subtract: {
            if (!numbers) bad_operands("-", a, b);
            if (floats) return to_double(a) - to_double(b);
            return checked(sub_overflows, as_integer(a, ""), as_integer(b, ""), "-");
        }
        case BinaryOp::Multiply: {
            if (floats) return to_double(a) * to_double(b);
            if (numbers) return checked(mul_overflows, as_integer(a, ""), as_integer(b, ""), "*");
            if ((a.is<std::string>() || a.is<ListRef>()) && (b.is<int64_t>() || b.is<bool>()))
                return repeat(a, as_integer(b, ""));
            if ((b.is<std::string>() || b.is<ListRef>()) && (a.is<int64_t>() || a.is<bool>()))
                return repeat(b, as_integer(a, ""));
            bad_operands("*", a, b);
        }
        case BinaryOp::Divide:
            if (!numbers) bad_operands("/", a, b);
            if (to_double(b) == 0.0) fault(Kind::Type, "operator '/'", "division by zero");
            return to_double(a) / to_double(b);
        case BinaryOp::FloorDivide:
        case BinaryOp::Modulo: {
            const bool divide = op == BinaryOp::FloorDivide;
            const char* name = divide ? "//" : "%";
            if (a.is<std::string>() && !divide)
                fault(Kind::Unsupported, "operator '%'", "printf-style string formatting");
            if (!numbers) bad_operands(name, a, b);
            if (to_double(b) == 0.0)
                fault(Kind::Type, std::string("operator '") + name + "'", "division by zero");
            if (floats) {
                const double x = to_double(a), y = to_double(b);
                if (divide) return std::floor(x / y);
                double r = std::fmod(x, y);
                if (r != 0.0 && ((r < 0) != (y < 0))) r += y;
                return r;
            }
            const int64_t x = as_integer(a, ""), y = as_integer(b, "");
            return divide ? floor_divide(x, y) : modulo(x, y);
        }
        case BinaryOp::Power: {
            if (!numbers) bad_operands("**", a, b);
            if (floats || as_integer(b, "") < 0) return std::pow(to_double(a), to_double(b));
            const int64_t base = as_integer(a, ""), exponent = as_integer(b, "");
            // |base| < 2 never overflows, however large the exponent; others overflow within
            // 63 steps.
            if (base == 0) return int64_t(exponent == 0 ? 1 : 0);
            if (base == 1) return int64_t(1);
            if (base == -1) return int64_t(exponent % 2 == 0 ? 1 : -1);
            int64_t result = 1;
            for (int64_t e = 0; e < exponent; ++e)
                result = checked(mul_overflows, result, base, "**");
            return result;
        }
        default: break;
    }
    bad_operands("?", a, b);
}

bool compare(CompareOp op, const Value& a, const Value& b) {
    switch (op) {
        case CompareOp::Equal: return equals(a, b);
        case CompareOp::NotEqual: return !equals(a, b);
        case CompareOp::Less: return less(a, b);
        case CompareOp::LessEqual: return less(a, b) || equals(a, b);
        case CompareOp::Greater: return less(b, a);
        case CompareOp::GreaterEqual: return less(b, a) || equals(a, b);
        case CompareOp::In: return contains_value(b, a);
        case CompareOp::NotIn: return !contains_value(b, a);
    }
    return false;
}

class Evaluator {
public:
    Evaluator(const std::vector<std::pair<std::string, Value>>& variables,
              const std::optional<CalendarDate>& today)
        : today_(today) {
        scopes_.emplace_back();
        for (const std::string& name : global_function_names(today.has_value()))
            scopes_.back()[name] = Value::callable(name);
        for (const auto& [name, value] : variables) scopes_.back()[name] = value;
        scopes_.emplace_back();  // the template's own top-level sets
    }

    std::string run(const Body& body) {
        std::string out;
        exec(body, out);
        return out;
    }

private:
    // ---- statements ----

    Flow exec(const Body& body, std::string& out) {
        for (const Stmt& stmt : body) {
            const Flow flow =
                std::visit([&](const auto& s) { return exec_one(stmt.pos, s, out); }, stmt.node);
            if (flow != Flow::Normal) return flow;
        }
        return Flow::Normal;
    }

    void emit(std::string& out, const std::string& text, SourcePos pos) {
        if (out.size() + text.size() > kMaxOutputBytes)
            throw ChatTemplateError(
                Kind::Limit, pos.line, pos.column, "output",
                "the rendering exceeds " + std::to_string(kMaxOutputBytes >> 20) + " MiB");
        out += text;
    }

    Flow exec_one(SourcePos pos, const TextStmt& s, std::string& out) {
        emit(out, s.text, pos);
        return Flow::Normal;
    }

    Flow exec_one(SourcePos pos, const OutputStmt& s, std::string& out) {
        const Value v = eval(*s.expr);
        emit(out, guarded(s.expr->pos, [&] { return to_output(v); }), pos);
        return Flow::Normal;
    }

    Flow exec_one(SourcePos, const IfStmt& s, std::string& out) {
        for (const auto& [condition, body] : s.branches)
            if (truthy(eval(*condition))) return exec(body, out);
        return exec(s.otherwise, out);
    }

    Flow exec_one(SourcePos pos, const ForStmt& s, std::string& out) {
        const Value iterable = eval(*s.iterable);
        std::vector<Value> items = guarded(s.iterable->pos, [&] { return iterate(iterable); });
        if (s.filter) {
            std::vector<Value> kept;
            for (const Value& item : items) {
                scopes_.emplace_back();
                bind_targets(s, item, pos);
                if (truthy(eval(*s.filter))) kept.push_back(item);
                scopes_.pop_back();
            }
            items = std::move(kept);
        }
        if (items.empty()) return exec(s.otherwise, out);
        const int64_t n = int64_t(items.size());
        for (int64_t i = 0; i < n; ++i) {
            if (++iterations_ > kMaxLoopIterations)
                throw ChatTemplateError(
                    Kind::Limit, pos.line, pos.column, "loop",
                    "more than " + std::to_string(kMaxLoopIterations) + " loop iterations");
            scopes_.emplace_back();
            bind_targets(s, items[size_t(i)], pos);
            DictData loop;
            loop.set("index0", i);
            loop.set("index", i + 1);
            loop.set("revindex0", n - i - 1);
            loop.set("revindex", n - i);
            loop.set("first", i == 0);
            loop.set("last", i == n - 1);
            loop.set("length", n);
            loop.set("depth", int64_t(1));
            loop.set("depth0", int64_t(0));
            if (i > 0) loop.set("previtem", items[size_t(i - 1)]);
            if (i < n - 1) loop.set("nextitem", items[size_t(i + 1)]);
            scopes_.back()["loop"] = Value::dict(std::move(loop));
            const Flow flow = exec(s.body, out);
            scopes_.pop_back();
            if (flow == Flow::Break) break;
        }
        return Flow::Normal;
    }

    void bind_targets(const ForStmt& s, const Value& item, SourcePos pos) {
        if (s.targets.size() == 1) {
            scopes_.back()[s.targets[0]] = item;
            return;
        }
        const std::vector<Value> parts = guarded(pos, [&] { return iterate(item); });
        if (parts.size() != s.targets.size())
            throw ChatTemplateError(Kind::Type, pos.line, pos.column, "tag 'for'",
                                    "cannot unpack " + std::to_string(parts.size()) +
                                        " values into " + std::to_string(s.targets.size()) +
                                        " loop variables");
        for (size_t k = 0; k < parts.size(); ++k) scopes_.back()[s.targets[k]] = parts[k];
    }

    Flow exec_one(SourcePos pos, const SetStmt& s, std::string&) {
        Value value = eval(*s.value);
        if (s.attribute.empty()) {
            scopes_.back()[s.name] = std::move(value);
            return Flow::Normal;
        }
        const Value target = lookup(s.name);
        if (!target.is<NamespaceRef>())
            throw ChatTemplateError(Kind::Type, pos.line, pos.column, "tag 'set'",
                                    "cannot assign attribute '" + s.attribute + "' of '" + s.name +
                                        "', which is a " + type_name(target) + ", not a namespace");
        target.as<NamespaceRef>()->set(s.attribute, std::move(value));
        return Flow::Normal;
    }

    Flow exec_one(SourcePos, const SetBlockStmt& s, std::string&) {
        std::string captured;
        exec(s.body, captured);
        scopes_.back()[s.name] = Value(std::move(captured));
        return Flow::Normal;
    }

    Flow exec_one(SourcePos, const BreakStmt&, std::string&) { return Flow::Break; }
    Flow exec_one(SourcePos, const ContinueStmt&, std::string&) { return Flow::Continue; }

    // ---- expressions ----

    Value lookup(const std::string& name) const {
        for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
            if (const auto it = scope->find(name); it != scope->end()) return it->second;
        return Value::undefined("'" + name + "'");
    }

    // Runs `f`, turning a ValueFault into a ChatTemplateError at `pos`.
    template <typename F>
    auto guarded(SourcePos pos, F&& f) -> decltype(f()) {
        try {
            return f();
        } catch (const ValueFault& e) {
            throw ChatTemplateError(e.kind, pos.line, pos.column, e.construct, e.detail);
        }
    }

    Value eval(const Expr& e) {
        return guarded(
            e.pos, [&] { return std::visit([&](const auto& n) { return eval_node(n); }, e.node); });
    }

    CallArgs eval_args(const Arguments& args) {
        CallArgs out;
        for (const ExprPtr& a : args.positional) out.positional.push_back(eval(*a));
        for (const auto& [name, a] : args.named) out.named.emplace_back(name, eval(*a));
        return out;
    }

    Value eval_node(const LiteralExpr& n) { return n.value; }
    Value eval_node(const NameExpr& n) { return lookup(n.name); }

    Value eval_node(const ListExpr& n) {
        std::vector<Value> items;
        for (const ExprPtr& item : n.items) items.push_back(eval(*item));
        return Value::list(std::move(items), n.tuple);
    }

    Value eval_node(const DictExpr& n) {
        DictData dict;
        for (const auto& [key_expr, value_expr] : n.entries) {
            const Value key = eval(*key_expr);
            if (!key.is<std::string>())
                fault(Kind::Unsupported, "dict literal",
                      "keys other than strings (this key is a " + type_name(key) + ")");
            dict.set(key.as<std::string>(), eval(*value_expr));
        }
        return Value::dict(std::move(dict));
    }

    Value eval_node(const AttributeExpr& n) { return get_attribute(eval(*n.object), n.name); }
    Value eval_node(const ItemExpr& n) { return get_item(eval(*n.object), eval(*n.index)); }

    Value eval_node(const SliceExpr& n) {
        const Value object = eval(*n.object);
        auto bound = [&](const ExprPtr& e) -> std::optional<int64_t> {
            if (!e) return std::nullopt;
            const Value v = eval(*e);
            if (v.is<std::nullptr_t>()) return std::nullopt;
            return as_integer(v, "slice");
        };
        const std::optional<int64_t> start = bound(n.start), stop = bound(n.stop),
                                     step_given = bound(n.step);
        const int64_t step = step_given.value_or(1);
        if (step == 0) fault(Kind::Type, "slice", "the step must not be zero");
        if (!object.is<std::string>() && !object.is<ListRef>())
            fault(Kind::Type, "slice", "a " + type_name(object) + " cannot be sliced");
        const std::vector<Value> items = iterate(object);
        const int64_t len = int64_t(items.size());
        // Python's slice.indices().
        auto clamp = [&](std::optional<int64_t> v, int64_t if_absent) {
            if (!v) return if_absent;
            int64_t i = *v < 0 ? *v + len : *v;
            if (step > 0) return std::clamp<int64_t>(i, 0, len);
            return std::clamp<int64_t>(i, -1, len - 1);
        };
        const int64_t from = clamp(start, step > 0 ? 0 : len - 1);
        const int64_t to = clamp(stop, step > 0 ? len : -1);
        std::vector<Value> picked;
        for (int64_t i = from; step > 0 ? i < to : i > to; i += step)
            picked.push_back(items[size_t(i)]);
        if (object.is<std::string>()) {
            std::string text;
            for (const Value& c : picked) text += c.as<std::string>();
            return text;
        }
        return Value::list(std::move(picked), object.as<ListRef>()->tuple);
    }

    Value eval_node(const CallExpr& n) {
        const Value callee = eval(*n.callee);
        const CallArgs args = eval_args(n.args);
        if (callee.is<Undefined>())
            fault(Kind::Undefined, "call",
                  callee.as<Undefined>().what + " is undefined and cannot be called");
        if (!callee.is<Callable>())
            fault(Kind::Type, "call", "a " + type_name(callee) + " cannot be called");
        const Callable& c = callee.as<Callable>();
        return c.receiver ? call_method(c, args) : call_global(c.name, args, today_);
    }

    Value eval_node(const FilterExpr& n) {
        const FilterFn fn = find_filter(n.name);
        if (!fn)
            fault(Kind::Unsupported, "filter '" + n.name + "'", "no such filter in this renderer");
        const Value operand = eval(*n.operand);
        return fn(operand, eval_args(n.args));
    }

    Value eval_node(const TestExpr& n) {
        const TestFn fn = find_test(n.name);
        if (!fn) fault(Kind::Unsupported, "test '" + n.name + "'", "no such test in this renderer");
        const Value operand = eval(*n.operand);
        return fn(operand, eval_args(n.args)) != n.negated;
    }

    Value eval_node(const UnaryExpr& n) {
        const Value v = eval(*n.operand);
        if (n.op == UnaryOp::Not) return !truthy(v);
        if (!v.is_number())
            fault(Kind::Type, n.op == UnaryOp::Negate ? "operator '-'" : "operator '+'",
                  "bad operand type " + type_name(v));
        if (n.op == UnaryOp::Plus) return v.is<bool>() ? Value(as_integer(v, "")) : v;
        if (v.is<double>()) return -v.as<double>();
        const int64_t i = as_integer(v, "");
        if (i == INT64_MIN) overflow("-");
        return -i;
    }

    Value eval_node(const BinaryExpr& n) {
        const Value left = eval(*n.left);
        if (n.op == BinaryOp::And) return truthy(left) ? eval(*n.right) : left;
        if (n.op == BinaryOp::Or) return truthy(left) ? left : eval(*n.right);
        const Value right = eval(*n.right);
        if (n.op == BinaryOp::Concat) return to_output(left) + to_output(right);
        return arithmetic(n.op, left, right);
    }

    Value eval_node(const CompareExpr& n) {
        Value left = eval(*n.first);
        for (const auto& [op, expr] : n.rest) {
            Value right = eval(*expr);
            if (!compare(op, left, right)) return false;
            left = std::move(right);
        }
        return true;
    }

    Value eval_node(const ConditionalExpr& n) {
        if (truthy(eval(*n.condition))) return eval(*n.then);
        return n.otherwise ? eval(*n.otherwise) : Value::undefined("the else branch");
    }

    std::optional<CalendarDate> today_;
    std::vector<std::unordered_map<std::string, Value>> scopes_;
    int64_t iterations_ = 0;
};

}  // namespace

std::string evaluate_template(const Body& body,
                              const std::vector<std::pair<std::string, Value>>& variables,
                              const std::optional<CalendarDate>& today) {
    return Evaluator(variables, today).run(body);
}

}  // namespace kvw::jinja
