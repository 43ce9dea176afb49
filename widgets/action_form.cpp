#include "widgets/action_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSpinBox>

#include "widgets/action_text.h"

namespace kvw {

namespace {

constexpr int kMaxPos = 1 << 24;  // far beyond any capacity; pre-flight judges the real range

QSpinBox* spin(const char* name, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(0, kMaxPos);
    return box;
}

}  // namespace

std::optional<std::vector<int>> parse_int_list(const QString& text, QString* error) {
    std::vector<int> values;
    for (const QString& part : text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = part.toInt(&ok);
        if (!ok || v < 0) {
            *error = QString("'%1' is not a non-negative integer").arg(part);
            return std::nullopt;
        }
        values.push_back(v);
    }
    return values;
}

ActionForm::ActionForm(QWidget* parent)
    : QWidget(parent),
      form_(new QFormLayout(this)),
      kind_(new QComboBox(this)),
      pos_(spin("pos", this)),
      pos1_(spin("pos1", this)),
      pos2_(spin("pos2", this)),
      use_ids_(new QRadioButton("token ids", this)),
      use_text_(new QRadioButton("text", this)),
      ids_(new QLineEdit(this)),
      text_(new QLineEdit(this)),
      tokens_(new QLabel(this)),
      token_(spin("tokenId", this)),
      level_(spin("level", this)),
      layers_(new QLineEdit(this)) {
    kind_->setObjectName("kind");
    use_ids_->setObjectName("useIds");
    use_text_->setObjectName("useText");
    ids_->setObjectName("tokenIds");
    text_->setObjectName("text");
    tokens_->setObjectName("tokenPreview");
    tokens_->setWordWrap(true);
    tokens_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tokens_->setToolTip(
        "The new tokens as pieces, '·' for a space: what the edit puts into the "
        "cache");
    layers_->setObjectName("layers");
    kind_->addItems({"delete", "replace_pair", "insert", "add", "collapse", "expand"});
    level_->setRange(1, 2);
    level_->setToolTip("wLOD level of the gist: 1 (K tokens) or 2 (K² tokens)");
    ids_->setPlaceholderText("e.g. 1234, 56");
    text_->setPlaceholderText("tokenized by the session");
    layers_->setPlaceholderText("all layers (or e.g. 0, 2)");
    use_ids_->setChecked(true);
    pos2_->setValue(1);

    form_->addRow("action", kind_);
    form_->addRow("pos", pos_);
    form_->addRow("pos1", pos1_);
    form_->addRow("pos2", pos2_);
    form_->addRow(use_ids_, ids_);
    form_->addRow(use_text_, text_);
    form_->addRow("tokens", tokens_);
    form_->addRow("token id", token_);
    form_->addRow("level", level_);
    form_->addRow("layers", layers_);

    connect(kind_, &QComboBox::currentIndexChanged, this, &ActionForm::updateFields);
    connect(use_text_, &QRadioButton::toggled, this, &ActionForm::updateFields);
    connect(text_, &QLineEdit::textChanged, this, &ActionForm::updatePreview);
    connect(ids_, &QLineEdit::textChanged, this, &ActionForm::updatePreview);
    updateFields();
}

bool ActionForm::byText() const {
    const int kind = kind_->currentIndex();
    return (kind == ReplacePair || kind == Insert) && use_text_->isChecked();
}

void ActionForm::updateFields() {
    const int kind = kind_->currentIndex();
    const bool new_tokens = kind == ReplacePair || kind == Insert;
    form_->setRowVisible(pos_,
                         kind == Delete || kind == Insert || kind == Collapse || kind == Expand);
    form_->setRowVisible(level_, kind == Collapse);
    form_->setRowVisible(pos1_, kind == ReplacePair);
    form_->setRowVisible(pos2_, kind == ReplacePair);
    form_->setRowVisible(ids_, new_tokens);
    form_->setRowVisible(text_, new_tokens);
    form_->setRowVisible(tokens_, new_tokens);
    form_->setRowVisible(token_, kind == Add);
    ids_->setEnabled(!byText());
    text_->setEnabled(byText());
    // A text edit goes to every layer that holds the same records (the controller decides);
    // an add always appends to every layer (Step 4).
    layers_->setEnabled(!byText() && kind != Add);
    updatePreview();
}

void ActionForm::setTokenizer(std::shared_ptr<const Tokenizer> tokenizer) {
    if (tokenizer == tokenizer_) return;
    tokenizer_ = std::move(tokenizer);
    updatePreview();
}

QString ActionForm::tokenPreview() const { return tokens_->text(); }

void ActionForm::updatePreview() {
    std::vector<int32_t> ids;
    if (byText()) {
        if (!tokenizer_) {
            tokens_->setText("shown once a model is loaded");
            return;
        }
        ids = text_tokens(*tokenizer_, text_->text().toStdString());
    } else {
        QString error;  // read() says what is wrong when the list is sent
        const auto parsed = parse_int_list(ids_->text(), &error);
        if (!parsed) {
            tokens_->clear();
            return;
        }
        ids.assign(parsed->begin(), parsed->end());
    }
    tokens_->setText(ids.empty() ? QString("none")
                                 : QString("%1 token%2: %3")
                                       .arg(ids.size())
                                       .arg(ids.size() == 1 ? "" : "s")
                                       .arg(token_pieces_text(ids, tokenizer_.get())));
}

void ActionForm::setRow(int row) {
    if (row < 0) return;
    pos_->setValue(row);
    pos1_->setValue(row);
    pos2_->setValue(row + 1);
}

ActionForm::Result ActionForm::read() const {
    Result result;
    const int kind = kind_->currentIndex();
    const int first = kind == ReplacePair ? pos1_->value() : pos_->value();
    if (byText()) {
        if (text_->text().isEmpty()) {
            result.error = "text: type the new tokens' text";
            return result;
        }
        result.text_kind =
            kind == ReplacePair ? TextActionKind::ReplacePair : TextActionKind::Insert;
        result.text = text_->text();
        result.pos1 = first;
        result.pos2 = kind == ReplacePair ? pos2_->value() : -1;
        return result;
    }
    QString error;
    const auto layers = layers_->isEnabled() ? parse_int_list(layers_->text(), &error)
                                             : std::optional<std::vector<int>>(std::vector<int>{});
    if (!layers) {
        result.error = "layers: " + error;
        return result;
    }
    std::vector<int32_t> ids;
    if (kind == ReplacePair || kind == Insert) {
        const auto parsed = parse_int_list(ids_->text(), &error);
        if (!parsed) {
            result.error = "token ids: " + error;
            return result;
        }
        ids.assign(parsed->begin(), parsed->end());
    }
    switch (kind) {
        case Delete: result.action = Action{DeleteAction{first}, *layers}; break;
        case ReplacePair:
            result.action = Action{ReplacePairAction{first, pos2_->value(), ids}, *layers};
            break;
        case Insert: result.action = Action{InsertAction{first, ids}, *layers}; break;
        case Collapse:
            result.action = Action{CollapseAction{first, level_->value()}, *layers};
            break;
        case Expand: result.action = Action{ExpandAction{first}, *layers}; break;
        default: result.action = Action{AddAction{token_->value()}, {}}; break;
    }
    return result;
}

}  // namespace kvw
