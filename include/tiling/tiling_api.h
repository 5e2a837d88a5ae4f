// SDK header name of the host-side tiling API (matmul_tiling::MultiCoreMatmulTiling,
// MatmulApiTiling, optiling::TCubeTiling; see asc/kernel/matmul_tiling.h) and,
// as CANN's, the tiling-data macros of register/tilingdata_base.h.
#pragma once

// CANN's tiling headers bring <iostream> in; samples print with std::cout
// after including only this one.
#include <iostream>

#include "asc/kernel/matmul_tiling.h"
#include "tiling/adv_tiling.h"
#include "register/tilingdata_base.h"
