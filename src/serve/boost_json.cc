// Boost.JSON (Debian's Boost 1.81 headers), compiled into the serve layer as its documentation's
// header-only use has it: the request decoder (json_codec.cc) parses with it, about ten times
// faster than nlohmann-json on tensor data, which bounded the JSON request rate.
#include <boost/json/src.hpp>
