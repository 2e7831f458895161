public enum FlowParserPlaceholder {}
