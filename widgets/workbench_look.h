#pragma once
#include <QFont>

class QApplication;

namespace kvw {

// The one look of the window, of the widget tests and of every screenshot (ARCHITECTURE §6):
// Fusion with its own palette (not the desktop's) and DejaVu Sans loaded from its file at a
// fixed pixel size, so that text measures the same on every machine and screenshots compare
// pixel by pixel. Call once, after the QApplication exists and before any widget is made.
void apply_workbench_look(QApplication& app);

// DejaVu Sans Mono at the same pixel size, for JSON and the log.
QFont workbench_mono_font();

}  // namespace kvw
