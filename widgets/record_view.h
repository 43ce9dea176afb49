#pragma once
#include "widgets/frame_view.h"

class QLabel;
class QSpinBox;
class QTableWidget;

namespace kvw {

// One token across layers: the ledger record held by the selected row (or any record picked by
// id, a removed one included) and, for every layer, whether it is live there, at which row,
// its brightness, RoPE phase and drift, or when, why and with what score it left. A layer whose
// cache and ledger disagree about the record is drawn red. Clicking a live layer selects the
// record's row in that layer everywhere. A line of links lists the ticks where the record was
// born and left layers (record_ticks); clicking one shows the window at that tick.
class RecordView : public FrameView {
    Q_OBJECT
public:
    explicit RecordView(QWidget* parent = nullptr);
    QString viewName() const override { return "record"; }
    ViewTable table() const override;

    enum Column { Layer, Status, Row, Brightness, Rope, Drift, LeftAt, Why, Score };

    int64_t recordId() const;

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

private:
    void showRecord();
    void selectLayer(int table_row);

    FramePtr frame_;
    QSpinBox* record_;
    QLabel* header_;
    QLabel* ticks_;
    QTableWidget* table_;
};

// "#12 ·model (generated, token 345, born tick 3): live in 3 of 4 layers".
QString record_header_text(const Frame& frame, int64_t id);
// "Ticks: 3 born (generated) · 7 replaced (layers 0–3)" with each tick a link to itself.
QString record_ticks_html(const Frame& frame, int64_t id);

}  // namespace kvw
