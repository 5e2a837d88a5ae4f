// SDK header name of CANN's host-side platform information
// (platform_ascendc::PlatformAscendCManager / PlatformAscendC).
// See asc/host/platform_ascendc.h.
#pragma once

#include "asc/host/platform_ascendc.h"
