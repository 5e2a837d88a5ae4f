// SDK header name of the host-side tiling API (matmul_tiling::MultiCoreMatmulTiling,
// MatmulApiTiling, optiling::TCubeTiling). See asc/kernel/matmul_tiling.h.
#pragma once

#include "asc/kernel/matmul_tiling.h"
