#pragma once
#include <zstd.h>
#include <zdict.h>
