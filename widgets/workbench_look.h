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

// Wall-clock times (tick and step milliseconds) differ from run to run: script runs hide them
// from the picture so that the same script gives the same screenshots (the trace and the Frame
// keep them). Off unless set; set once, before any view shows a Frame.
void set_wall_clock_hidden(bool hidden);
bool wall_clock_hidden();

}  // namespace kvw
