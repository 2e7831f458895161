import FlowModel

/// The part of an Arazzo 1.0 document (https://spec.openapis.org/arazzo/v1.0.1) flowspec writes
/// and reads: `export --format arazzo` encodes it, `import` decodes it, so the two directions
/// share one definition. Field names are the specification's; `x-flowspec` extensions carry
/// what Arazzo has no field for (actors, the steps a runner cannot take, exact matchers), so an
/// exported flow imports back whole. Unknown fields of foreign documents are ignored.
public struct ArazzoDocument: Codable, Hashable, Sendable {
    public var arazzo: String
    public var info: Info
    public var sourceDescriptions: [SourceDescription]
    public var workflows: [Workflow]

    public struct Info: Codable, Hashable, Sendable {
        public var title: String
        public var summary: String?
        public var description: String?
        public var version: String

        public init(title: String, summary: String? = nil, description: String? = nil, version: String) {
            self.title = title
            self.summary = summary
            self.description = description
            self.version = version
        }
    }

    public struct SourceDescription: Codable, Hashable, Sendable {
        public var name: String
        public var url: String
        public var type: String?

        public init(name: String, url: String, type: String? = nil) {
            self.name = name
            self.url = url
            self.type = type
        }
    }

    public struct Workflow: Codable, Hashable, Sendable {
        public var workflowId: String
        public var summary: String?
        public var description: String?
        public var inputs: InputSchema?
        public var steps: [Step]
        public var outputs: [String: String]?
        public var flowspec: FlowSkeleton?

        public init(workflowId: String, summary: String? = nil, description: String? = nil, inputs: InputSchema? = nil, steps: [Step], outputs: [String: String]? = nil, flowspec: FlowSkeleton? = nil) {
            self.workflowId = workflowId
            self.summary = summary
            self.description = description
            self.inputs = inputs
            self.steps = steps
            self.outputs = outputs
            self.flowspec = flowspec
        }

        enum CodingKeys: String, CodingKey {
            case workflowId, summary, description, inputs, steps, outputs
            case flowspec = "x-flowspec"
        }
    }

    public struct Step: Codable, Hashable, Sendable {
        public var stepId: String
        public var description: String?
        public var operationId: String?
        public var operationPath: String?
        /// A step that runs another workflow (flowspec writes none; import reports them).
        public var workflowId: String?
        public var parameters: [Parameter]?
        public var requestBody: RequestBody?
        public var successCriteria: [Criterion]?
        public var onSuccess: [Action]?
        public var onFailure: [Action]?
        public var outputs: [String: String]?

        public init(stepId: String, description: String? = nil, operationId: String? = nil, operationPath: String? = nil, workflowId: String? = nil, parameters: [Parameter]? = nil, requestBody: RequestBody? = nil, successCriteria: [Criterion]? = nil, onSuccess: [Action]? = nil, onFailure: [Action]? = nil, outputs: [String: String]? = nil) {
            self.stepId = stepId
            self.description = description
            self.operationId = operationId
            self.operationPath = operationPath
            self.workflowId = workflowId
            self.parameters = parameters
            self.requestBody = requestBody
            self.successCriteria = successCriteria
            self.onSuccess = onSuccess
            self.onFailure = onFailure
            self.outputs = outputs
        }
    }

    public struct Parameter: Codable, Hashable, Sendable {
        public var name: String
        public var location: String?
        public var value: JSONNode

        public init(name: String, location: String?, value: JSONNode) {
            self.name = name
            self.location = location
            self.value = value
        }

        enum CodingKeys: String, CodingKey {
            case name, value
            case location = "in"
        }
    }

    public struct RequestBody: Codable, Hashable, Sendable {
        public var contentType: String?
        public var payload: JSONNode?

        public init(contentType: String?, payload: JSONNode?) {
            self.contentType = contentType
            self.payload = payload
        }
    }

    /// A success criterion: `type` nil is a simple condition.
    public struct Criterion: Codable, Hashable, Sendable {
        public var context: String?
        public var condition: String
        public var type: String?
        /// The `expect` line this criterion renders, exactly (Arazzo has no type test).
        public var origin: CriterionOrigin?

        public init(context: String? = nil, condition: String, type: String? = nil, origin: CriterionOrigin? = nil) {
            self.context = context
            self.condition = condition
            self.type = type
            self.origin = origin
        }

        enum CodingKeys: String, CodingKey {
            case context, condition, type
            case origin = "x-flowspec"
        }
    }

    public struct CriterionOrigin: Codable, Hashable, Sendable {
        public var header: String?
        public var json: String?
        public var matcher: ValueMatcher

        public init(header: String? = nil, json: String? = nil, matcher: ValueMatcher) {
            self.header = header
            self.json = json
            self.matcher = matcher
        }
    }

    /// A success or failure action: `end`, or `goto` a step of the workflow.
    public struct Action: Codable, Hashable, Sendable {
        public var name: String
        public var type: String
        public var stepId: String?
        public var workflowId: String?
        public var criteria: [Criterion]?

        public init(name: String, type: String, stepId: String? = nil, workflowId: String? = nil, criteria: [Criterion]? = nil) {
            self.name = name
            self.type = type
            self.stepId = stepId
            self.workflowId = workflowId
            self.criteria = criteria
        }
    }
}

/// The JSON Schema subset used for workflow inputs.
public struct InputSchema: Codable, Hashable, Sendable {
    public var type: String?
    public var description: String?
    public var defaultValue: String?
    public var properties: [String: InputSchema]?
    public var required: [String]?

    public init(type: String?, description: String? = nil, defaultValue: String? = nil, properties: [String: InputSchema]? = nil, required: [String]? = nil) {
        self.type = type
        self.description = description
        self.defaultValue = defaultValue
        self.properties = properties
        self.required = required
    }

    enum CodingKeys: String, CodingKey {
        case type, description, properties, required
        case defaultValue = "default"
    }
}

/// `x-flowspec` on a workflow: the flow's structure beyond its API calls, in order.
public struct FlowSkeleton: Codable, Hashable, Sendable {
    public var lang: String
    public var provider: String?
    public var nonce: String?
    public var tags: [String]?
    public var environments: [String]?
    public var actors: [ActorEntry]
    public var steps: [StepEntry]
    public var tokenRules: [TokenRuleEntry]?

    public struct ActorEntry: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var role: String
    }

    public struct StepEntry: Codable, Hashable, Sendable {
        public var number: Int
        public var title: String
        public var from: String
        public var to: String
        /// `request` for the steps that are Arazzo steps, else what a runner cannot do.
        public var kind: String
        public var alternates: [AlternateEntry]?
    }

    public struct AlternateEntry: Codable, Hashable, Sendable {
        public var label: String
        /// `6` or `end: cancelled`, as a spec writes it.
        public var target: String
        /// The branch has its own request but the step's `expect` block (its workflow step
        /// carries the step's criteria).
        public var sharedExpectation: Bool?
    }

    public struct TokenRuleEntry: Codable, Hashable, Sendable {
        public var id: String
        public var token: String
        public var step: Int?
        public var requirement: String
    }
}
