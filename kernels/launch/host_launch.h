#pragma once
// Runs a kernel body (grid.h) over its grid on the CPU, block after block and thread after
// thread in index order: what the unit tests check the device kernels' maths with.
#include "kernels/launch/grid.h"

namespace kvw::kern {

template <class Body>
void host_launch(const Body& body) {
    const Launch l = body.shape();
    At at{{}, {}, l.grid, l.block};
    for (at.block.z = 0; at.block.z < l.grid.z; ++at.block.z)
        for (at.block.y = 0; at.block.y < l.grid.y; ++at.block.y)
            for (at.block.x = 0; at.block.x < l.grid.x; ++at.block.x)
                for (at.thread.z = 0; at.thread.z < l.block.z; ++at.thread.z)
                    for (at.thread.y = 0; at.thread.y < l.block.y; ++at.thread.y)
                        for (at.thread.x = 0; at.thread.x < l.block.x; ++at.thread.x) body(at);
}

}  // namespace kvw::kern
