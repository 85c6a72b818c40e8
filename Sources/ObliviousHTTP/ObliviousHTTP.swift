/// Oblivious HTTP (RFC 9458): HPKE, Binary HTTP, key configurations and encapsulation.
public enum ObliviousHTTPModule {}
