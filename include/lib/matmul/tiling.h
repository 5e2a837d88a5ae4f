// Matmul tiling types and generators (matmul_tiling::MultiCoreMatmulTiling,
// MatmulApiTiling, optiling::TCubeTiling, TCubeTiling). See
// asc/kernel/matmul_tiling.h.
#pragma once

#include "asc/kernel/matmul_tiling.h"
