#include "widgets/log_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QVBoxLayout>

#include "widgets/log_hub.h"
#include "widgets/workbench_look.h"

namespace kvw {

namespace {

// Dim for chatter, red for trouble; the level word in each line says the same in words.
const char* level_color(spdlog::level::level_enum level) {
    switch (level) {
        case spdlog::level::trace:
        case spdlog::level::debug: return "#707070";
        case spdlog::level::warn: return "#9a5b00";
        case spdlog::level::err:
        case spdlog::level::critical: return "#b00020";
        default: return "#000000";
    }
}

// A script run hides wall-clock times from the picture (workbench_look.h): the load time at
// the end of "loaded MODEL … 0.01 s", which a wrapped line shows, differs from run to run.
QString displayed_text(const QString& text) {
    if (!wall_clock_hidden()) return text;
    static const QRegularExpression duration(R"(\b\d+(\.\d+)? (s|ms)\b)");
    return QString(text).replace(duration, "— \\2");
}

}  // namespace

LogView::LogView(QWidget* parent)
    : FrameView(parent), level_(new QComboBox(this)), text_(new QPlainTextEdit(this)) {
    level_->setObjectName("level");
    text_->setObjectName("text");
    for (int l = spdlog::level::trace; l < spdlog::level::off; ++l) {
        const auto name = spdlog::level::to_string_view(spdlog::level::level_enum(l));
        level_->addItem(QString::fromUtf8(name.data(), qsizetype(name.size())), l);
    }
    level_->setCurrentIndex(level_->findData(int(filter_)));
    text_->setReadOnly(true);
    text_->setFont(workbench_mono_font());
    text_->setMaximumBlockCount(kMaxLines);
    // Long lines (an error with its context) wrap at the dock's width instead of running past it.
    text_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    auto* clear = new QPushButton("Clear", this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel("Show from level", this));
    bar->addWidget(level_);
    bar->addStretch(1);
    bar->addWidget(clear);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(text_, 1);

    connect(level_, &QComboBox::currentIndexChanged, this, [this](int index) {
        setLevelFilter(spdlog::level::level_enum(level_->itemData(index).toInt()));
    });
    // The log follows its newest line unless the reader scrolled up. Wrapped lines wrap again
    // when the dock's width changes, and the range then grows under a bar that sat at its end:
    // QPlainTextEdit follows only a bar at its end when a line is appended.
    QScrollBar* scroll = text_->verticalScrollBar();
    connect(scroll, &QScrollBar::valueChanged, this,
            [this, scroll](int value) { follows_end_ = value >= scroll->maximum(); });
    connect(scroll, &QScrollBar::rangeChanged, this, [this, scroll](int, int maximum) {
        if (follows_end_) scroll->setValue(maximum);
    });
    connect(clear, &QPushButton::clicked, this, [this] {
        lines_.clear();
        text_->clear();
    });

    // Timestamps would make every screenshot differ; the level is what the reader scans for.
    sink_ = std::make_shared<QueuedLogSink>(
        this, [this](spdlog::level::level_enum level, LogChannel channel, const QString& text) {
            receive(level, channel, text);
        });
    sink_->set_pattern("[%l] %v");
    log_hub()->add_sink(sink_);
}

LogView::~LogView() {
    // After this returns no thread is inside the sink or can enter it; messages it already
    // queued to this object die with it.
    log_hub()->remove_sink(sink_);
}

void LogView::setLevelFilter(spdlog::level::level_enum level) {
    if (level == filter_) return;
    filter_ = level;
    level_->setCurrentIndex(level_->findData(int(level)));
    refill();
}

void LogView::receive(spdlog::level::level_enum level, LogChannel channel, const QString& text) {
    if (channel == kHiddenLogChannel) return;
    if (channel_ != kAnyLogChannel && channel != kAnyLogChannel && channel != channel_) return;
    lines_.push_back({level, text});
    if (lines_.size() > size_t(kMaxLines)) lines_.pop_front();
    showLine(lines_.back());
}

void LogView::showLine(const Line& line) {
    if (line.level < filter_) return;
    text_->appendHtml(QString("<span style=\"color:%1; white-space:pre-wrap;\">%2</span>")
                          .arg(level_color(line.level), displayed_text(line.text).toHtmlEscaped()));
}

void LogView::refill() {
    text_->clear();
    for (const Line& line : lines_) showLine(line);
}

ViewTable LogView::table() const {
    ViewTable t{{"level", "text"}, {}};
    for (const Line& line : lines_) {
        const auto name = spdlog::level::to_string_view(line.level);
        t.rows.append({QString::fromUtf8(name.data(), qsizetype(name.size())), line.text});
    }
    return t;
}

}  // namespace kvw
