#pragma once
#include <QCoreApplication>
#include <QEventLoop>

namespace kvw {

// Runs what is queued for the UI: views replot through queued events (QCustomPlot's
// rpQueuedReplot) and layouts settle the same way; a few rounds let the events those events
// post run too, so that a grab right after shows the last Frame fully drawn.
inline void settle_queued_events() {
    for (int round = 0; round < 4; ++round) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

}  // namespace kvw
