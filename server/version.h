#ifndef GRAPHD_SERVER_VERSION_H_
#define GRAPHD_SERVER_VERSION_H_

namespace graphd::server {
inline constexpr char kVersion[] = "0.1.0";
}  // namespace graphd::server

#endif  // GRAPHD_SERVER_VERSION_H_
