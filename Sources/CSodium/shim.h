#pragma once
#include <sodium.h>
