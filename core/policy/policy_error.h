#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace kvw {

// Inputs to a policy function that do not fit together (a brightness vector and an attention
// mass vector of different lengths, a proposer input whose layers disagree...). The message
// names the layer and both sizes.
class PolicyInputError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Which count of a PolicyBudget a BudgetError is about.
enum class BudgetField : uint8_t { Sink, Budget, Window };

// A budget no selective policy can keep (check_budget): a negative count or an empty window.
// field() says which count, for a form that shows the error beside it.
class BudgetError : public PolicyInputError {
public:
    BudgetError(BudgetField field, const std::string& what)
        : PolicyInputError(what), field_(field) {}
    BudgetField field() const { return field_; }

private:
    BudgetField field_;
};

// make_proposer() was given a name it does not know; the message lists the known ones.
class UnknownProposer : public std::invalid_argument {
public:
    UnknownProposer(std::string name, const std::string& known)
        : std::invalid_argument("unknown proposer '" + name + "' (known: " + known + ")"),
          name_(std::move(name)) {}
    const std::string& name() const { return name_; }

private:
    std::string name_;
};

}  // namespace kvw
