#pragma once
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "core/model/tokenizer.h"
#include "core/session/text_action.h"
#include "core/state/action.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace kvw {

// "0, 2 5" → {0, 2, 5}: non-negative integers separated by commas or spaces. Empty text is an
// empty list. On a bad entry returns nothing and says which in *error.
std::optional<std::vector<int>> parse_int_list(const QString& text, QString* error);

// A form for one action: its type, then that type's fields (delete: pos; replace_pair: pos1,
// pos2 and new tokens; insert: pos and new tokens; add: token id; collapse: pos and level;
// expand: pos) and the layers it is restricted to. New tokens are ids, or text that the
// controller tokenizes; either way the form shows, as they are typed, the tokens they are as
// pieces (text_tokens, token_pieces_text), so that a leading space that becomes a token of its
// own is seen before the edit is sent.
class ActionForm : public QWidget {
    Q_OBJECT
public:
    explicit ActionForm(QWidget* parent = nullptr);

    // The combo's entries, in this order.
    enum Kind { Delete, ReplacePair, Insert, Add, Collapse, Expand };

    // What the fields say: an action; or, for new tokens given as text, the text with its kind
    // and rows (pos2 -1 for insert); or an error naming the field.
    struct Result {
        std::optional<Action> action;
        TextActionKind text_kind = TextActionKind::ReplacePair;
        QString text;
        int pos1 = 0;
        int pos2 = -1;
        QString error;
    };
    Result read() const;

    // Starts the positions at a row selected elsewhere.
    void setRow(int row);
    // The session's tokenizer (from its Frame), for the preview of the new tokens.
    void setTokenizer(std::shared_ptr<const Tokenizer> tokenizer);
    // What the preview says now: "3 tokens: [·] [·And] [·God]".
    QString tokenPreview() const;

private:
    void updateFields();
    void updatePreview();
    bool byText() const;

    QFormLayout* form_;
    QComboBox* kind_;
    QSpinBox* pos_;
    QSpinBox* pos1_;
    QSpinBox* pos2_;
    QRadioButton* use_ids_;
    QRadioButton* use_text_;
    QLineEdit* ids_;
    QLineEdit* text_;
    QLabel* tokens_;  // the new tokens as pieces
    QSpinBox* token_;
    QSpinBox* level_;
    QLineEdit* layers_;
    std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace kvw
