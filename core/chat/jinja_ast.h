#pragma once
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/chat/jinja_value.h"

// The syntax tree of a chat template: expressions and statements, each with the line and
// column it starts at, so the evaluator's faults can say where.
namespace kvw::jinja {

// Nesting deeper than this — blocks in blocks, expressions in expressions — is refused
// (ChatTemplateErrorKind::Limit) so that parsing and evaluating, both recursive, cannot
// exhaust the stack. Real chat templates nest blocks about 8 deep and expressions about 10.
inline constexpr int kMaxTemplateDepth = 128;

struct SourcePos {
    int line = 0;
    int column = 0;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Arguments {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> named;
};

enum class UnaryOp { Negate, Plus, Not };
enum class BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    FloorDivide,
    Modulo,
    Power,
    Concat,
    And,
    Or
};
enum class CompareOp { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, In, NotIn };

struct LiteralExpr {
    Value value;
};
struct NameExpr {
    std::string name;
};
struct ListExpr {
    std::vector<ExprPtr> items;
    bool tuple = false;
};
struct DictExpr {
    std::vector<std::pair<ExprPtr, ExprPtr>> entries;
};
struct AttributeExpr {  // object.name
    ExprPtr object;
    std::string name;
};
struct ItemExpr {  // object[index]
    ExprPtr object;
    ExprPtr index;
};
struct SliceExpr {  // object[start:stop:step], each part optional
    ExprPtr object;
    ExprPtr start, stop, step;
};
struct CallExpr {
    ExprPtr callee;
    Arguments args;
};
struct FilterExpr {  // operand | name(args)
    ExprPtr operand;
    std::string name;
    Arguments args;
};
struct TestExpr {  // operand is [not] name(args)
    ExprPtr operand;
    std::string name;
    Arguments args;
    bool negated = false;
};
struct UnaryExpr {
    UnaryOp op;
    ExprPtr operand;
};
struct BinaryExpr {
    BinaryOp op;
    ExprPtr left, right;
};
struct CompareExpr {  // first op1 second op2 third ... (Python's chained comparison)
    ExprPtr first;
    std::vector<std::pair<CompareOp, ExprPtr>> rest;
};
struct ConditionalExpr {  // then if condition else otherwise (otherwise may be absent)
    ExprPtr condition, then, otherwise;
};

struct Expr {
    SourcePos pos;
    int depth = 1;  // of the tree below and including this node
    std::variant<LiteralExpr, NameExpr, ListExpr, DictExpr, AttributeExpr, ItemExpr, SliceExpr,
                 CallExpr, FilterExpr, TestExpr, UnaryExpr, BinaryExpr, CompareExpr,
                 ConditionalExpr>
        node;
};

struct Stmt;
using Body = std::vector<Stmt>;

struct TextStmt {
    std::string text;
};
struct OutputStmt {  // {{ expr }}
    ExprPtr expr;
};
struct IfStmt {  // if / elif branches in order, then else
    std::vector<std::pair<ExprPtr, Body>> branches;
    Body otherwise;
};
struct ForStmt {  // for targets in iterable [if filter] ... [else ...]
    std::vector<std::string> targets;
    ExprPtr iterable;
    ExprPtr filter;
    Body body;
    Body otherwise;
};
struct SetStmt {  // set name = value, or set name.attribute = value (a namespace's)
    std::string name;
    std::string attribute;
    ExprPtr value;
};
struct SetBlockStmt {  // set name %}...{% endset: the body's output as a string
    std::string name;
    Body body;
};
struct BreakStmt {};
struct ContinueStmt {};

struct Stmt {
    SourcePos pos;
    std::variant<TextStmt, OutputStmt, IfStmt, ForStmt, SetStmt, SetBlockStmt, BreakStmt,
                 ContinueStmt>
        node;
};

}  // namespace kvw::jinja
