#include "widgets/workbench_look.h"

#include <spdlog/spdlog.h>

#include <QApplication>
#include <QFontDatabase>
#include <QStyle>
#include <QStyleFactory>

namespace kvw {

namespace {

constexpr int kFontPixelSize = 12;
constexpr const char* kFontDir = "/usr/share/fonts/truetype/dejavu/";

// The family of the font file, or `fallback` when the file cannot be loaded (Qt then picks the
// closest installed font and text widths may differ from the screenshots').
QString load_family(const char* file, const char* fallback) {
    const int id = QFontDatabase::addApplicationFont(QString(kFontDir) + file);
    const QStringList families =
        id < 0 ? QStringList() : QFontDatabase::applicationFontFamilies(id);
    if (families.isEmpty()) {
        spdlog::warn("look: cannot load {}{}; falling back to '{}'", kFontDir, file, fallback);
        return fallback;
    }
    return families.first();
}

bool g_wall_clock_hidden = false;

QFont fixed_font(const QString& family) {
    QFont font(family);
    font.setPixelSize(kFontPixelSize);
    font.setHintingPreference(QFont::PreferFullHinting);
    return font;
}

}  // namespace

void apply_workbench_look(QApplication& app) {
    QStyle* fusion = QStyleFactory::create("Fusion");
    app.setStyle(fusion);
    app.setPalette(fusion->standardPalette());
    app.setFont(fixed_font(load_family("DejaVuSans.ttf", "DejaVu Sans")));
    // Screenshots must not catch a caret half-way through its blink or a fading tooltip.
    app.setCursorFlashTime(0);
    app.setEffectEnabled(Qt::UI_AnimateMenu, false);
    app.setEffectEnabled(Qt::UI_FadeMenu, false);
    app.setEffectEnabled(Qt::UI_AnimateCombo, false);
    app.setEffectEnabled(Qt::UI_AnimateTooltip, false);
    app.setEffectEnabled(Qt::UI_FadeTooltip, false);
}

QFont workbench_mono_font() {
    static const QString family = load_family("DejaVuSansMono.ttf", "DejaVu Sans Mono");
    return fixed_font(family);
}

void set_wall_clock_hidden(bool hidden) { g_wall_clock_hidden = hidden; }
bool wall_clock_hidden() { return g_wall_clock_hidden; }

}  // namespace kvw
