#include "run/run_options.hpp"

#include <gtest/gtest.h>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"

namespace ferry::run_options_test {
namespace {

TEST(RanksSharingADevice, NamesEveryRankOfEachSharedDeviceAndWhatTheHostHas) {
  const std::string why =
      ranks_sharing_a_device({"device 0 on a", "device 1 on a", "device 2 on a", "device 3 on a", "device 0 on a"}, 4);
  EXPECT_NE(why.find("ranks 0 and 4 share device 0 on a"), std::string::npos) << why;
  EXPECT_NE(why.find("--allow-shared-gpu"), std::string::npos) << why;
  EXPECT_NE(why.find("this host has 4 devices"), std::string::npos) << why;
  EXPECT_EQ(why.find("device 1"), std::string::npos) << why;
}

TEST(RanksSharingADevice, TheSameDeviceNumberOnAnotherHostIsNotShared) {
  EXPECT_EQ(ranks_sharing_a_device({"device 0 on a", "device 0 on b", "device 1 on a", "device 1 on b"}, 2), "");
}

TEST(RanksSharingADevice, EverySharedDeviceIsNamed) {
  const std::string why =
      ranks_sharing_a_device({"device 0 on a", "device 1 on a", "device 0 on a", "device 1 on a", "device 0 on a"}, 2);
  EXPECT_NE(why.find("ranks 0, 2 and 4 share device 0 on a"), std::string::npos) << why;
  EXPECT_NE(why.find("ranks 1 and 3 share device 1 on a"), std::string::npos) << why;
}

TEST(RanksSharing, NamesTheRanksOfEachSharedPlaceAndNothingWhenNoneIsShared) {
  EXPECT_EQ(ranks_sharing({"device 0 on a", "device 0 on a", "device 1 on a"}), "ranks 0 and 1 share device 0 on a");
  EXPECT_EQ(ranks_sharing({"device 0 on a", "device 1 on a"}), "");
}

TEST(ParticipantDevices, OneProcessTakesEveryDeviceOrThoseListed) {
  emu::EmuBackend backend;
  RunOptions all;
  EXPECT_EQ(participant_devices(backend, all, world()).devices, (std::vector<int>{0, 1, 2, 3}));
  RunOptions listed;
  listed.devices = "2,0";
  EXPECT_EQ(participant_devices(backend, listed, world()).devices, (std::vector<int>{2, 0}));
}

}  // namespace
}  // namespace ferry::run_options_test
