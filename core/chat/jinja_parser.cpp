#include "core/chat/jinja_parser.h"

#include <algorithm>
#include <initializer_list>

#include "core/chat/jinja_lexer.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

// Compare operators by spelling.
constexpr std::pair<std::string_view, CompareOp> kCompareOps[] = {
    {"==", CompareOp::Equal},     {"!=", CompareOp::NotEqual}, {"<", CompareOp::Less},
    {"<=", CompareOp::LessEqual}, {">", CompareOp::Greater},   {">=", CompareOp::GreaterEqual},
};

int depth_of(const ExprPtr& e) { return e ? e->depth : 0; }

// The tree depth of a node from its children's.
template <typename Node>
int children_depth(const Node& n) {
    int d = 0;
    auto see = [&](const ExprPtr& e) { d = std::max(d, depth_of(e)); };
    auto see_args = [&](const Arguments& a) {
        for (const auto& e : a.positional) see(e);
        for (const auto& [name, e] : a.named) see(e);
    };
    if constexpr (requires { n.object; }) see(n.object);
    if constexpr (requires { n.operand; }) see(n.operand);
    if constexpr (requires { n.index; }) see(n.index);
    if constexpr (requires { n.start; }) {
        see(n.start);
        see(n.stop);
        see(n.step);
    }
    if constexpr (requires { n.callee; }) see(n.callee);
    if constexpr (requires { n.args; }) see_args(n.args);
    if constexpr (requires { n.left; }) {
        see(n.left);
        see(n.right);
    }
    if constexpr (requires { n.first; }) {
        see(n.first);
        for (const auto& [op, e] : n.rest) see(e);
    }
    if constexpr (requires { n.condition; }) {
        see(n.condition);
        see(n.then);
        see(n.otherwise);
    }
    if constexpr (requires { n.items; })
        for (const auto& e : n.items) see(e);
    if constexpr (requires { n.entries; })
        for (const auto& [k, v] : n.entries) {
            see(k);
            see(v);
        }
    return d;
}

class Parser {
public:
    explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

    Body run() {
        std::string found;
        Body body = parse_body({}, found, nullptr);
        return body;
    }

private:
    // ---- token stream ----
    const Token& current() const { return tokens_[pos_]; }
    const Token& peek(size_t ahead = 1) const {
        return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
    }
    const Token& advance() {
        const Token& t = tokens_[pos_];
        if (pos_ + 1 < tokens_.size()) ++pos_;
        return t;
    }
    bool is_op(std::string_view op) const {
        return current().type == TokenType::Operator && current().text == op;
    }
    bool is_name(std::string_view name) const {
        return current().type == TokenType::Name && current().text == name;
    }
    static SourcePos pos_of(const Token& t) { return {t.line, t.column}; }

    [[noreturn]] void fail(Kind kind, const Token& at, std::string construct,
                           const std::string& detail) const {
        throw ChatTemplateError(kind, at.line, at.column, std::move(construct), detail);
    }
    static std::string describe(const Token& t) {
        switch (t.type) {
            case TokenType::End: return "the end of the template";
            case TokenType::Text: return "text";
            case TokenType::VariableBegin: return "'{{'";
            case TokenType::VariableEnd: return "'}}'";
            case TokenType::BlockBegin: return "'{%'";
            case TokenType::BlockEnd: return "'%}'";
            case TokenType::String: return "a string";
            case TokenType::Integer:
            case TokenType::Float: return "the number " + t.text;
            default: return "'" + t.text + "'";
        }
    }
    void expect_op(std::string_view op) {
        if (!is_op(op))
            fail(Kind::Syntax, current(), "",
                 "expected '" + std::string(op) + "', found " + describe(current()));
        advance();
    }
    void expect_block_end(const char* tag) {
        if (current().type != TokenType::BlockEnd)
            fail(Kind::Syntax, current(), std::string("tag '") + tag + "'",
                 "expected '%}', found " + describe(current()));
        advance();
    }
    std::string expect_name(const char* what) {
        if (current().type != TokenType::Name)
            fail(Kind::Syntax, current(), "",
                 std::string("expected ") + what + ", found " + describe(current()));
        return advance().text;
    }

    // Nesting guard: parsing recurses once per level of blocks and of expressions.
    struct Nest {
        Parser& p;
        Nest(Parser& parser, const Token& at) : p(parser) {
            if (++p.depth_ > kMaxTemplateDepth)
                p.fail(Kind::Limit, at, "nesting",
                       "blocks and expressions nest deeper than " +
                           std::to_string(kMaxTemplateDepth) + " levels");
        }
        ~Nest() { --p.depth_; }
    };

    template <typename Node>
    ExprPtr make(SourcePos pos, Node node) {
        auto e = std::make_unique<Expr>();
        e->pos = pos;
        e->depth = 1 + children_depth(node);
        if (e->depth > kMaxTemplateDepth)
            throw ChatTemplateError(
                Kind::Limit, pos.line, pos.column, "nesting",
                "an expression nests deeper than " + std::to_string(kMaxTemplateDepth) + " levels");
        e->node = std::move(node);
        return e;
    }

    // ---- statements ----

    // Statements up to a block tag named in `enders` (whose name is consumed and returned in
    // `found`) or, for the top level (`enders` empty), the end of the template. `opener`: the
    // block being read, for the message when it is never closed.
    Body parse_body(std::initializer_list<std::string_view> enders, std::string& found,
                    const Token* opener) {
        const Token* outer = opener_;
        opener_ = opener;
        struct Restore {
            const Token*& slot;
            const Token* value;
            ~Restore() { slot = value; }
        } restore{opener_, outer};
        Body body;
        while (true) {
            const Token& t = current();
            switch (t.type) {
                case TokenType::End:
                    if (opener)
                        fail(Kind::Syntax, t, "tag '" + opener->text + "'",
                             "the block opened at line " + std::to_string(opener->line) +
                                 ", column " + std::to_string(opener->column) +
                                 " is never closed (expected " + list_of(enders) + ")");
                    return body;
                case TokenType::Text:
                    body.push_back({pos_of(t), TextStmt{t.text}});
                    advance();
                    break;
                case TokenType::VariableBegin: {
                    advance();
                    ExprPtr e = parse_tuple(true, false);
                    if (current().type != TokenType::VariableEnd)
                        fail(Kind::Syntax, current(), "",
                             "expected '}}', found " + describe(current()));
                    advance();
                    body.push_back({pos_of(t), OutputStmt{std::move(e)}});
                    break;
                }
                case TokenType::BlockBegin: {
                    const Token& name = peek();
                    if (name.type == TokenType::Name &&
                        std::find(enders.begin(), enders.end(), name.text) != enders.end()) {
                        advance();
                        found = advance().text;
                        return body;
                    }
                    advance();
                    body.push_back(parse_statement());
                    break;
                }
                default: fail(Kind::Syntax, t, "", "unexpected " + describe(t));
            }
        }
    }

    static std::string list_of(std::initializer_list<std::string_view> names) {
        std::string out;
        for (const std::string_view n : names)
            out += (out.empty() ? "'" : " or '") + std::string(n) + "'";
        return out;
    }

    Stmt parse_statement() {
        const Token& tag = current();
        if (tag.type != TokenType::Name)
            fail(Kind::Syntax, tag, "", "expected a tag name, found " + describe(tag));
        const Nest nest(*this, tag);
        const std::string& name = tag.text;
        if (name == "if") return parse_if();
        if (name == "for") return parse_for();
        if (name == "set") return parse_set();
        if (name == "break" || name == "continue") {
            if (loops_ == 0)
                fail(Kind::Syntax, tag, "tag '" + name + "'", "used outside a for loop");
            advance();
            expect_block_end(name == "break" ? "break" : "continue");
            if (name == "break") return {pos_of(tag), BreakStmt{}};
            return {pos_of(tag), ContinueStmt{}};
        }
        for (const char* closer : {"elif", "else", "endif", "endfor", "endset"})
            if (name == closer) {
                if (opener_)
                    fail(Kind::Syntax, tag, "tag '" + opener_->text + "'",
                         "the block opened at line " + std::to_string(opener_->line) + ", column " +
                             std::to_string(opener_->column) + " meets '" + name +
                             "' before it is closed");
                fail(Kind::Syntax, tag, "tag '" + name + "'", "there is no block for it to close");
            }
        fail(Kind::Unsupported, tag, "tag '" + name + "'",
             "this renderer implements if, for, set, break and continue");
    }

    Stmt parse_if() {
        const Token& opener = advance();
        IfStmt stmt;
        std::string found;
        ExprPtr condition = parse_expression(true);
        expect_block_end("if");
        while (true) {
            Body body = parse_body({"elif", "else", "endif"}, found, &opener);
            stmt.branches.emplace_back(std::move(condition), std::move(body));
            if (found != "elif") break;
            condition = parse_expression(true);
            expect_block_end("elif");
        }
        if (found == "else") {
            expect_block_end("else");
            stmt.otherwise = parse_body({"endif"}, found, &opener);
        }
        expect_block_end("endif");
        return {pos_of(opener), std::move(stmt)};
    }

    Stmt parse_for() {
        const Token& opener = advance();
        ForStmt stmt;
        do {
            stmt.targets.push_back(expect_name("a loop variable"));
        } while (is_op(",") && (advance(), true));
        if (!is_name("in"))
            fail(Kind::Syntax, current(), "tag 'for'",
                 "expected 'in', found " + describe(current()));
        advance();
        stmt.iterable = parse_tuple(false, false);
        if (is_name("if")) {
            advance();
            stmt.filter = parse_expression(true);
        }
        if (is_name("recursive"))
            fail(Kind::Unsupported, current(), "recursive loop", "loop(...) is not implemented");
        expect_block_end("for");
        std::string found;
        ++loops_;
        stmt.body = parse_body({"else", "endfor"}, found, &opener);
        --loops_;
        if (found == "else") {
            expect_block_end("else");
            stmt.otherwise = parse_body({"endfor"}, found, &opener);
        }
        expect_block_end("endfor");
        return {pos_of(opener), std::move(stmt)};
    }

    Stmt parse_set() {
        const Token& opener = advance();
        const std::string name = expect_name("a variable name");
        if (is_op(","))
            fail(Kind::Unsupported, current(), "tag 'set'", "assigning to several names");
        std::string attribute;
        if (is_op(".")) {
            advance();
            attribute = expect_name("an attribute name");
        }
        if (current().type == TokenType::BlockEnd && attribute.empty()) {
            advance();
            std::string found;
            const int loops = loops_;
            loops_ = 0;  // break / continue cannot leave a set block
            Body body = parse_body({"endset"}, found, &opener);
            loops_ = loops;
            expect_block_end("endset");
            return {pos_of(opener), SetBlockStmt{name, std::move(body)}};
        }
        if (is_op("|")) fail(Kind::Unsupported, current(), "tag 'set'", "filtered set blocks");
        expect_op("=");
        ExprPtr value = parse_tuple(true, false);
        expect_block_end("set");
        return {pos_of(opener), SetStmt{name, attribute, std::move(value)}};
    }

    // ---- expressions, in Jinja's precedence order ----

    ExprPtr parse_expression(bool with_condition) {
        const Nest nest(*this, current());
        return with_condition ? parse_conditional() : parse_or();
    }

    // `a, b` without parentheses is a tuple (in {{ }} and set); one expression is itself.
    ExprPtr parse_tuple(bool with_condition, bool explicit_parentheses) {
        const SourcePos pos = pos_of(current());
        std::vector<ExprPtr> items;
        bool is_tuple = false;
        while (true) {
            if (!items.empty()) expect_op(",");
            if (tuple_ends()) break;
            items.push_back(parse_expression(with_condition));
            if (is_op(","))
                is_tuple = true;
            else
                break;
        }
        if (!is_tuple) {
            if (!items.empty()) return std::move(items.front());
            if (!explicit_parentheses)
                fail(Kind::Syntax, current(), "",
                     "expected an expression, found " + describe(current()));
        }
        return make(pos, ListExpr{std::move(items), true});
    }

    bool tuple_ends() const {
        const TokenType t = current().type;
        return t == TokenType::VariableEnd || t == TokenType::BlockEnd || is_op(")") ||
               is_name("if") || is_name("in");
    }

    ExprPtr parse_conditional() {
        ExprPtr then = parse_or();
        while (is_name("if")) {
            const SourcePos pos = pos_of(advance());
            ExprPtr condition = parse_or();
            ExprPtr otherwise;
            if (is_name("else")) {
                advance();
                otherwise = parse_conditional();
            }
            then = make(
                pos, ConditionalExpr{std::move(condition), std::move(then), std::move(otherwise)});
        }
        return then;
    }

    ExprPtr parse_or() {
        ExprPtr left = parse_and();
        while (is_name("or")) {
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{BinaryOp::Or, std::move(left), parse_and()});
        }
        return left;
    }

    ExprPtr parse_and() {
        ExprPtr left = parse_not();
        while (is_name("and")) {
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{BinaryOp::And, std::move(left), parse_not()});
        }
        return left;
    }

    ExprPtr parse_not() {
        if (is_name("not")) {
            const Nest nest(*this, current());
            const SourcePos pos = pos_of(advance());
            return make(pos, UnaryExpr{UnaryOp::Not, parse_not()});
        }
        return parse_compare();
    }

    ExprPtr parse_compare() {
        const SourcePos pos = pos_of(current());
        ExprPtr first = parse_add();
        CompareExpr compare;
        while (true) {
            std::optional<CompareOp> op;
            if (current().type == TokenType::Operator)
                for (const auto& [spelling, value] : kCompareOps)
                    if (current().text == spelling) op = value;
            if (op) {
                advance();
            } else if (is_name("in")) {
                advance();
                op = CompareOp::In;
            } else if (is_name("not") && peek().type == TokenType::Name && peek().text == "in") {
                advance();
                advance();
                op = CompareOp::NotIn;
            } else {
                break;
            }
            compare.rest.emplace_back(*op, parse_add());
        }
        if (compare.rest.empty()) return first;
        compare.first = std::move(first);
        return make(pos, std::move(compare));
    }

    ExprPtr parse_add() {
        ExprPtr left = parse_concat();
        while (is_op("+") || is_op("-")) {
            const BinaryOp op = is_op("+") ? BinaryOp::Add : BinaryOp::Subtract;
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{op, std::move(left), parse_concat()});
        }
        return left;
    }

    ExprPtr parse_concat() {
        ExprPtr left = parse_multiply();
        while (is_op("~")) {
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{BinaryOp::Concat, std::move(left), parse_multiply()});
        }
        return left;
    }

    ExprPtr parse_multiply() {
        ExprPtr left = parse_power();
        while (true) {
            BinaryOp op;
            if (is_op("*"))
                op = BinaryOp::Multiply;
            else if (is_op("/"))
                op = BinaryOp::Divide;
            else if (is_op("//"))
                op = BinaryOp::FloorDivide;
            else if (is_op("%"))
                op = BinaryOp::Modulo;
            else
                return left;
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{op, std::move(left), parse_power()});
        }
    }

    ExprPtr parse_power() {
        ExprPtr left = parse_unary(true);
        while (is_op("**")) {
            const SourcePos pos = pos_of(advance());
            left = make(pos, BinaryExpr{BinaryOp::Power, std::move(left), parse_unary(true)});
        }
        return left;
    }

    ExprPtr parse_unary(bool with_filter) {
        const SourcePos pos = pos_of(current());
        ExprPtr node;
        if (is_op("-") || is_op("+")) {
            const Nest nest(*this, current());
            const UnaryOp op = is_op("-") ? UnaryOp::Negate : UnaryOp::Plus;
            advance();
            node = make(pos, UnaryExpr{op, parse_unary(false)});
        } else {
            node = parse_primary();
        }
        node = parse_postfix(std::move(node));
        if (with_filter) node = parse_filters_and_tests(std::move(node));
        return node;
    }

    ExprPtr parse_primary() {
        const Token& t = current();
        const SourcePos pos = pos_of(t);
        switch (t.type) {
            case TokenType::Name: {
                advance();
                if (t.text == "true" || t.text == "True") return make(pos, LiteralExpr{true});
                if (t.text == "false" || t.text == "False") return make(pos, LiteralExpr{false});
                if (t.text == "none" || t.text == "None") return make(pos, LiteralExpr{nullptr});
                return make(pos, NameExpr{t.text});
            }
            case TokenType::String: {
                std::string text = advance().text;
                while (current().type == TokenType::String) text += advance().text;
                return make(pos, LiteralExpr{Value(std::move(text))});
            }
            case TokenType::Integer: advance(); return make(pos, LiteralExpr{Value(t.integer)});
            case TokenType::Float: advance(); return make(pos, LiteralExpr{Value(t.floating)});
            default: break;
        }
        if (is_op("(")) {
            advance();
            ExprPtr inner = parse_tuple(true, true);
            expect_op(")");
            return inner;
        }
        if (is_op("[")) {
            advance();
            ListExpr list;
            while (!is_op("]")) {
                if (!list.items.empty()) expect_op(",");
                if (is_op("]")) break;
                list.items.push_back(parse_expression(true));
            }
            advance();
            return make(pos, std::move(list));
        }
        if (is_op("{")) {
            advance();
            DictExpr dict;
            while (!is_op("}")) {
                if (!dict.entries.empty()) expect_op(",");
                if (is_op("}")) break;
                ExprPtr key = parse_expression(true);
                expect_op(":");
                dict.entries.emplace_back(std::move(key), parse_expression(true));
            }
            advance();
            return make(pos, std::move(dict));
        }
        fail(Kind::Syntax, t, "", "unexpected " + describe(t));
    }

    ExprPtr parse_postfix(ExprPtr node) {
        while (true) {
            const SourcePos pos = pos_of(current());
            if (is_op(".")) {
                advance();
                if (current().type == TokenType::Integer) {
                    const int64_t index = advance().integer;
                    node = make(pos, ItemExpr{std::move(node), make(pos, LiteralExpr{index})});
                } else {
                    node = make(pos, AttributeExpr{std::move(node), expect_name("an attribute")});
                }
            } else if (is_op("[")) {
                advance();
                node = parse_subscript(pos, std::move(node));
                expect_op("]");
            } else if (is_op("(")) {
                node = parse_call(std::move(node));
            } else {
                return node;
            }
        }
    }

    ExprPtr parse_subscript(SourcePos pos, ExprPtr object) {
        ExprPtr start;
        if (!is_op(":")) {
            start = parse_expression(true);
            if (is_op(",")) fail(Kind::Unsupported, current(), "subscript", "tuple subscripts");
            if (!is_op(":")) return make(pos, ItemExpr{std::move(object), std::move(start)});
        }
        advance();  // the first ':'
        SliceExpr slice{std::move(object), std::move(start), nullptr, nullptr};
        if (!is_op(":") && !is_op("]")) slice.stop = parse_expression(true);
        if (is_op(":")) {
            advance();
            if (!is_op("]")) slice.step = parse_expression(true);
        }
        return make(pos, std::move(slice));
    }

    Arguments parse_arguments() {
        expect_op("(");
        Arguments args;
        while (!is_op(")")) {
            if (!args.positional.empty() || !args.named.empty()) expect_op(",");
            if (is_op(")")) break;
            if (is_op("*") || is_op("**"))
                fail(Kind::Unsupported, current(), "argument unpacking", "*args and **kwargs");
            if (current().type == TokenType::Name && peek().type == TokenType::Operator &&
                peek().text == "=") {
                std::string name = advance().text;
                advance();
                args.named.emplace_back(std::move(name), parse_expression(true));
            } else {
                if (!args.named.empty())
                    fail(Kind::Syntax, current(), "",
                         "a positional argument follows a keyword argument");
                args.positional.push_back(parse_expression(true));
            }
        }
        advance();
        return args;
    }

    // A call is placed where its callee is: `lipsum(2)` at the name, `'x'.zfill(3)` at
    // `.zfill`.
    ExprPtr parse_call(ExprPtr callee) {
        const SourcePos pos = callee->pos;
        return make(pos, CallExpr{std::move(callee), parse_arguments()});
    }

    ExprPtr parse_filters_and_tests(ExprPtr node) {
        while (true) {
            const SourcePos pos = pos_of(current());
            if (is_op("|")) {
                advance();
                FilterExpr filter{std::move(node), expect_name("a filter name"), {}};
                if (is_op("(")) filter.args = parse_arguments();
                node = make(pos, std::move(filter));
            } else if (is_name("is")) {
                advance();
                TestExpr test;
                if (is_name("not")) {
                    advance();
                    test.negated = true;
                }
                test.name = expect_name("a test name");
                test.operand = std::move(node);
                if (is_op("(")) {
                    test.args = parse_arguments();
                } else if (takes_bare_argument()) {
                    if (is_name("is"))
                        fail(Kind::Syntax, current(), "test", "tests cannot be chained with 'is'");
                    test.args.positional.push_back(parse_postfix(parse_primary()));
                }
                node = make(pos, std::move(test));
            } else if (is_op("(")) {
                node = parse_call(std::move(node));
            } else {
                return node;
            }
        }
    }

    // `x is divisibleby 3`, `x is equalto 'a'`: one argument without parentheses.
    bool takes_bare_argument() const {
        const TokenType t = current().type;
        if (t == TokenType::Name) return !is_name("else") && !is_name("or") && !is_name("and");
        return t == TokenType::String || t == TokenType::Integer || t == TokenType::Float ||
               is_op("[") || is_op("{");
    }

    std::vector<Token> tokens_;
    size_t pos_ = 0;
    int depth_ = 0;
    int loops_ = 0;                  // for loops around the current statement (break / continue)
    const Token* opener_ = nullptr;  // the tag of the innermost block being read
};

}  // namespace

Body parse_template(std::string_view source) { return Parser(lex_template(source)).run(); }

}  // namespace kvw::jinja
