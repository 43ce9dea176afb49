#pragma once
#include <QDialog>

class QSpinBox;

namespace kvw {

// The Session menu's "wLOD tree…" (ARCHITECTURE §14): K, tokens per block (0: wLOD off), and
// W_max, the rows the focus policy keeps the context within (0: no budget), starting at what
// the session runs. OK sends both to Session::set_wlod through the window.
class WlodDialog : public QDialog {
    Q_OBJECT
public:
    WlodDialog(int k, qint64 w_max, QWidget* parent = nullptr);
    int k() const;
    qint64 wMax() const;
    void setK(int k);
    void setWMax(qint64 w_max);

private:
    QSpinBox* k_;
    QSpinBox* w_max_;
};

}  // namespace kvw
