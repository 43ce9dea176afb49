#include "widgets/token_strip_view.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/row_text.h"
#include "widgets/token_chip_canvas.h"
#include "widgets/view_colors.h"
#include "widgets/wlod_edits.h"

namespace kvw {

namespace {

// Named after its action's object name, so that scripts can press it (`click tokens delete`).
QToolButton* button_for(QAction* action, QWidget* parent) {
    auto* button = new QToolButton(parent);
    button->setObjectName(action->objectName());
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return button;
}

bool known_record(const Frame& frame, int64_t id) {
    return id >= 0 && id < int64_t(frame.ledger.size());
}

// What the chip of the row holding record `id` reads.
QString chip_text(const Frame& frame, int64_t id) {
    if (!known_record(frame, id)) return QString("?%1").arg(id);
    const LedgerRecord& rec = frame.ledger[size_t(id)];
    return visible_piece(rec.piece, rec.token_id);
}

}  // namespace

TokenStripView::TokenStripView(QWidget* parent)
    : FrameView(parent),
      header_(new QLabel(this)),
      scroll_(new QScrollArea(this)),
      canvas_(new TokenChipCanvas),
      delete_(new QAction("Delete", this)),
      replace_(new QAction("Replace pair with text…", this)),
      insert_(new QAction("Insert text before…", this)),
      collapse_l1_(new QAction("Collapse its block into a gist (L1)", this)),
      collapse_l2_(new QAction("Collapse its level-2 block into a gist (L2)", this)),
      expand_(new QAction("Expand the gist", this)),
      this_layer_(new QAction("Delete in this layer only", this)),
      apply_now_(new QAction("Edits skip the queue", this)) {
    header_->setObjectName("header");
    delete_->setObjectName("delete");
    replace_->setObjectName("replacePair");
    insert_->setObjectName("insertBefore");
    collapse_l1_->setObjectName("collapseL1");
    collapse_l2_->setObjectName("collapseL2");
    expand_->setObjectName("expand");
    this_layer_->setObjectName("thisLayerOnly");
    apply_now_->setObjectName("applyNow");
    canvas_->setObjectName("chips");
    // Short words on the buttons, so that the strip fits a narrow dock; the menu says it all.
    replace_->setIconText("Replace pair…");
    insert_->setIconText("Insert before…");
    this_layer_->setIconText("in this layer only");
    apply_now_->setIconText("Skip queue");
    this_layer_->setCheckable(true);
    apply_now_->setCheckable(true);
    this_layer_->setToolTip(
        "Delete: the rows go from the layer shown only; otherwise from every layer. Text edits "
        "go to every layer that holds the same records");
    apply_now_->setToolTip(
        "Checked: Delete, Replace and Insert apply at once (Step 4 now); unchecked: they are "
        "queued for the next tick");

    scroll_->setWidget(canvas_);
    scroll_->setWidgetResizable(false);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);  // a stable width to wrap at
    scroll_->viewport()->installEventFilter(this);
    canvas_->installEventFilter(this);  // its font changes: measure the texts again

    // The header on a line of its own, so that a narrow dock clips neither it nor the buttons;
    // "in this layer only" beside the Delete it qualifies, the queue switch apart from both.
    auto* bar = new QHBoxLayout;
    for (QAction* a : {delete_, this_layer_}) bar->addWidget(button_for(a, this));
    bar->addSpacing(8);
    for (QAction* a : {replace_, insert_}) bar->addWidget(button_for(a, this));
    bar->addStretch(1);
    bar->addWidget(button_for(apply_now_, this));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header_);
    layout->addLayout(bar);
    layout->addWidget(scroll_, 1);

    connect(canvas_, &TokenChipCanvas::chipClicked, this, &TokenStripView::clickChip);
    connect(canvas_, &TokenChipCanvas::chipMenuRequested, this, &TokenStripView::showMenu);
    connect(canvas_, &TokenChipCanvas::chipToolTipRequested, this,
            [this](int row, const QPoint& at) {
                if (row < 0)
                    QToolTip::hideText();
                else
                    QToolTip::showText(at, tokenToolTip(row), canvas_);
            });
    connect(delete_, &QAction::triggered, this, &TokenStripView::requestDelete);
    connect(replace_, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(this, "Replace pair",
                                                   QString("Replace rows %1 and %2 with text:")
                                                       .arg(std::min(first_, second_))
                                                       .arg(std::max(first_, second_)),
                                                   QLineEdit::Normal, {}, &ok);
        if (ok) requestReplacePair(text);
    });
    connect(insert_, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString text =
            QInputDialog::getText(this, "Insert text", QString("Insert before row %1:").arg(first_),
                                  QLineEdit::Normal, {}, &ok);
        if (ok) requestInsertBefore(text);
    });
    connect(collapse_l1_, &QAction::triggered, this, [this] { requestCollapse(1); });
    connect(collapse_l2_, &QAction::triggered, this, [this] { requestCollapse(2); });
    connect(expand_, &QAction::triggered, this, &TokenStripView::requestExpand);
    selectionChanged();
}

void TokenStripView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    rebuildChips();
}

void TokenStripView::setSelection(int layer, int row, int count) {
    if (layer != layer_) {
        layer_ = layer;
        first_ = -1;
        rebuildChips();
    }
    // The window echoes our own rowSelected back: keep the second token then.
    count = std::max(count, 1);
    if (row != first_ || count != span_) {
        first_ = row;
        span_ = count;
        second_ = -1;
    }
    selectionChanged();
    const QRect r = canvas_->chipRect(first_);
    if (!r.isNull()) scroll_->ensureVisible(r.center().x(), r.center().y(), 0, r.height());
}

int TokenStripView::chipTextWidth(int64_t id) {
    if (!known_record(*frame_, id) || frame_->ledger[size_t(id)].piece.empty())
        return canvas_->textWidth(chip_text(*frame_, id));  // "?id", "#token": rare
    const std::string& piece = frame_->ledger[size_t(id)].piece;
    auto it = piece_widths_.find(piece);
    if (it == piece_widths_.end())
        it = piece_widths_.emplace(piece, canvas_->textWidth(chip_text(*frame_, id))).first;
    return it->second;
}

void TokenStripView::rebuildChips() {
    std::vector<int> widths;
    ChipFace face;
    const bool has_layer = frame_ && layer_ >= 0 && layer_ < int(frame_->layers.size());
    if (has_layer) {
        const LayerFrame& lf = frame_->layers[size_t(layer_)];
        widths.reserve(size_t(lf.rows()));
        for (int64_t id : lf.pos2ledger) widths.push_back(chipTextWidth(id));
        face = [frame = frame_, layer = layer_](int row) {
            const LayerFrame& shown = frame->layers[size_t(layer)];
            const double top = std::max(double(frame->brightness_max), 1.0);
            return TokenChip{
                chip_text(*frame, shown.pos2ledger[size_t(row)]),
                !shown.record_brightness.empty()
                    ? scale_color(ColorScale::Brightness, shown.brightness(size_t(row)) / top)
                    : QColor(Qt::gray)};
        };
        header_->setText(
            QString("Layer %1 · %2 rows · tick %3").arg(layer_).arg(lf.rows()).arg(frame_->tick));
    } else {
        header_->setText(frame_ ? QString("Layer %1 does not exist").arg(layer_)
                                : QString("No state yet"));
    }
    canvas_->setChips(std::move(widths), std::move(face));
    // Rows beyond the new length are no longer selectable.
    if (first_ >= canvas_->chipCount()) first_ = -1;
    if (second_ >= canvas_->chipCount() || first_ < 0) second_ = -1;
    span_ = first_ < 0 ? 1 : std::min(span_, canvas_->chipCount() - first_);
    selectionChanged();
}

void TokenStripView::clickChip(int row, Qt::KeyboardModifiers modifiers) {
    if ((modifiers & (Qt::ShiftModifier | Qt::ControlModifier)) && first_ >= 0) {
        span_ = 1;  // a pair: the first row and this one
        second_ = row == first_ ? -1 : row;
        selectionChanged();
        return;
    }
    first_ = row;
    span_ = 1;
    second_ = -1;
    selectionChanged();
    emit rowSelected(layer_, row);
}

void TokenStripView::selectionChanged() {
    canvas_->setSelectedRows(first_, second_, span_);
    delete_->setEnabled(first_ >= 0);
    replace_->setEnabled(first_ >= 0 && second_ >= 0);
    insert_->setEnabled(first_ >= 0 && second_ < 0);
    const WlodRowEdits wlod = frame_ ? wlod_row_edits(*frame_, layer_, first_) : WlodRowEdits{};
    const bool on = frame_ && frame_->wlod_k > 0;
    const QString off = "wLOD is off (Session → wLOD tree…)";
    collapse_l1_->setEnabled(wlod.collapse_l1.has_value());
    collapse_l2_->setEnabled(wlod.collapse_l2.has_value());
    expand_->setEnabled(wlod.expand.has_value());
    collapse_l1_->setToolTip(on ? "The K token rows of its block become one gist row" : off);
    collapse_l2_->setToolTip(on ? "The K² tokens of its level-2 block become one gist row" : off);
    expand_->setToolTip(on ? "The gist row becomes the rows it stands for" : off);
}

void TokenStripView::showMenu(int row, const QPoint& global_pos) {
    // Right-clicking outside the selection selects the token under the mouse first.
    if (row >= 0 && row != first_ && row != second_) clickChip(row, Qt::NoModifier);
    QMenu menu(this);
    menu.addActions({delete_, this_layer_});
    menu.addSeparator();
    menu.addActions({replace_, insert_});
    menu.addSeparator();
    menu.addActions({collapse_l1_, collapse_l2_, expand_});
    menu.addSeparator();
    menu.addAction(apply_now_);
    menu.exec(global_pos);
}

QString TokenStripView::tokenToolTip(int row) const {
    return frame_ ? row_tooltip_text(*frame_, layer_, row) : QString();
}

void TokenStripView::setThisLayerOnly(bool on) { this_layer_->setChecked(on); }
void TokenStripView::setApplyNow(bool on) { apply_now_->setChecked(on); }

void TokenStripView::requestDelete() {
    if (first_ < 0) return;
    ActionList actions;
    std::vector<int> rows;
    for (int r = first_; r < first_ + span_; ++r) rows.push_back(r);
    if (second_ >= 0) rows.push_back(second_);
    for (int row : rows) {
        Action a{DeleteAction{row}, {}};
        if (this_layer_->isChecked()) a.layers = {layer_};
        actions.push_back(std::move(a));
    }
    emit actionsRequested(actions, apply_now_->isChecked());
}

void TokenStripView::requestReplacePair(const QString& text) {
    if (first_ < 0 || second_ < 0 || text.isEmpty()) return;
    emit textActionRequested(TextActionKind::ReplacePair, layer_, std::min(first_, second_),
                             std::max(first_, second_), text, apply_now_->isChecked());
}

void TokenStripView::requestInsertBefore(const QString& text) {
    if (first_ < 0 || text.isEmpty()) return;
    emit textActionRequested(TextActionKind::Insert, layer_, first_, -1, text,
                             apply_now_->isChecked());
}

void TokenStripView::requestCollapse(int level) {
    if (!frame_) return;
    const WlodRowEdits wlod = wlod_row_edits(*frame_, layer_, first_);
    const std::optional<Action>& collapse = level == 1 ? wlod.collapse_l1 : wlod.collapse_l2;
    if (collapse) emit actionsRequested({*collapse}, apply_now_->isChecked());
}

void TokenStripView::requestExpand() {
    if (!frame_) return;
    const WlodRowEdits wlod = wlod_row_edits(*frame_, layer_, first_);
    if (wlod.expand) emit actionsRequested({*wlod.expand}, apply_now_->isChecked());
}

bool TokenStripView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize)
        canvas_->setAvailableWidth(scroll_->viewport()->width());
    if (watched == canvas_ && event->type() == QEvent::FontChange) {
        piece_widths_.clear();
        rebuildChips();
    }
    return FrameView::eventFilter(watched, event);
}

ViewTable TokenStripView::table() const {
    ViewTable t{{"layer", "row", "ledger_id", "token_id", "piece", "kind", "brightness", "rope_pos",
                 "drift"},
                {}};
    if (!frame_ || layer_ >= int(frame_->layers.size())) return t;
    const LayerFrame& lf = frame_->layers[size_t(layer_)];
    for (int r = 0; r < lf.rows(); ++r) {
        const int64_t id = lf.pos2ledger[size_t(r)];
        const bool known = id >= 0 && id < int64_t(frame_->ledger.size());
        const LedgerRecord* rec = known ? &frame_->ledger[size_t(id)] : nullptr;
        t.rows.append({layer_, r, qint64(id), rec ? rec->token_id : -1,
                       rec ? QString::fromStdString(rec->piece) : QString(),
                       rec ? QString(entry_kind_name(rec->kind)) : QString(),
                       lf.brightness(size_t(r)), lf.rope_pos[size_t(r)],
                       size_t(r) < lf.drift.size() ? QVariant(lf.drift[size_t(r)]) : QVariant()});
    }
    return t;
}

}  // namespace kvw
