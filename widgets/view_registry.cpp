#include "widgets/view_registry.h"

#include "widgets/ab_view.h"
#include "widgets/action_editor_view.h"
#include "widgets/fork_view.h"
#include "widgets/invariants_panel.h"
#include "widgets/layer_maps_view.h"
#include "widgets/log_view.h"
#include "widgets/policy_view.h"
#include "widgets/record_view.h"
#include "widgets/ring_view.h"
#include "widgets/tick_inspector_view.h"
#include "widgets/timeline_view.h"
#include "widgets/token_strip_view.h"
#include "widgets/wlod_tree_view.h"

namespace kvw {

namespace {

template <class View>
FrameView* make(QWidget* parent) {
    return new View(parent);
}

}  // namespace

const std::vector<ViewInfo>& registered_views() {
    // The context and its maps take the left, the state's checks and edits the right, the
    // history the bottom.
    static const std::vector<ViewInfo> views = {
        {"tokens", "Tokens", Qt::LeftDockWidgetArea, make<TokenStripView>},
        {"maps", "Layer maps", Qt::LeftDockWidgetArea, make<LayerMapsView>},
        {"invariants", "Invariants", Qt::RightDockWidgetArea, make<InvariantsPanel>},
        {"actions", "Action editor", Qt::RightDockWidgetArea, make<ActionEditorView>},
        {"tick", "Tick inspector", Qt::RightDockWidgetArea, make<TickInspectorView>},
        {"wlod", "wLOD tree", Qt::RightDockWidgetArea, make<WlodTreeView>},
        {"record", "Token across layers", Qt::RightDockWidgetArea, make<RecordView>},
        {"timeline", "Timeline", Qt::BottomDockWidgetArea, make<TimelineView>},
        {"log", "Log", Qt::BottomDockWidgetArea, make<LogView>},
        {"policy", "Policy rows", Qt::BottomDockWidgetArea, make<PolicyView>},
        {"ab", "A/B", Qt::BottomDockWidgetArea, make<AbView>},
        {"ring", "Ring slab", Qt::BottomDockWidgetArea, make<RingView>},
        {"fork", "Fork", Qt::BottomDockWidgetArea, make<ForkView>},
    };
    return views;
}

}  // namespace kvw
