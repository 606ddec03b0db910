#pragma once
// Analytic models of a link: theoretical rates from what the hardware reports,
// and time = latency + bytes / bandwidth.
#include <string>

#include "core/machine.hpp"

namespace ferry::model {

// Bytes per second one direction of a PCIe link carries after line encoding
// (8b/10b up to Gen2, 128b/130b for Gen3-5, 242B/256B flits for Gen6); 0 when unknown.
double pcie_Bps(int generation, int width);

// "PCIe Gen5 x16"
std::string pcie_name(int generation, int width);

// One direction of one NVLink, by NVLink version (1..5); 0 when unknown.
double nvlink_Bps_per_link(int version);

// A theoretical rate and what it stands on ("18 x NVLink4"); Bps 0 when the machine does not say.
struct RatedLink {
  double Bps = 0;
  std::string basis;
};

// One direction of a GPU's PCIe link at its most (generation x width); Bps 0 when unknown.
RatedLink gpu_pcie(const Machine& machine, int device);

// One direction between two GPUs, from what the machine reports: their NVLinks
// where NVML counts them, else the slower GPU's PCIe link.
RatedLink peer_link(const Machine& machine, int from, int to);

// A device-to-device copy reads and writes every byte: half the memory bandwidth.
inline double device_copy_Bps(double memory_bandwidth_Bps) { return memory_bandwidth_Bps / 2; }

// time = latency + bytes / bandwidth
inline double transfer_seconds(double bytes, double latency_s, double bandwidth_Bps) {
  return latency_s + bytes / bandwidth_Bps;
}
inline double transfer_Bps(double bytes, double latency_s, double bandwidth_Bps) {
  return bytes / transfer_seconds(bytes, latency_s, bandwidth_Bps);
}

}  // namespace ferry::model
