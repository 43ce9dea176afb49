#pragma once

namespace kvw {

class MainWindow;

// The menu bar: File, Edit (undo / redo, snapshots, fork), View, Session, Help. The Session entries
// are the toolbar's own actions (one QAction each, so a disabled Step is disabled in both places)
// with their keyboard shortcuts; Help → Keyboard shortcuts lists them from the same actions.
void add_main_menus(MainWindow& window);

}  // namespace kvw
