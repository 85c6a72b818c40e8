public enum RelayProfilesModule {}
