#pragma once
// Analytic models of a link: theoretical rates from what the hardware reports,
// and time = latency + bytes / bandwidth.
#include <string>

namespace ferry::model {

// Bytes per second one direction of a PCIe link carries after line encoding
// (8b/10b up to Gen2, 128b/130b for Gen3-5, 242B/256B flits for Gen6); 0 when unknown.
double pcie_Bps(int generation, int width);

// "PCIe Gen5 x16"
std::string pcie_name(int generation, int width);

// One direction of one NVLink, by NVLink version (1..5); 0 when unknown.
double nvlink_Bps_per_link(int version);

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
