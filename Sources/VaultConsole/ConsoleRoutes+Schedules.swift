import Hummingbird
import Vault

extension ConsoleRoutes {
    /// The Schedules screen, the plan builder, a schedule's change and the Needs-review queue. Reading
    /// is open to every role; each schedule post needs its ``ConsoleAction``'s permission (after the
    /// CSRF check), the one its form is shown to; resolving a review needs `support`.
    func addScheduleRoutes<Context: RequestContext>(to console: RouterGroup<Context>) {
        console.get("schedules") { request, _ in
            try await withSession(request) { signed in try await SchedulesScreen(services: services).list(query: Self.query(request), signed: signed) }
        }
        console.get("schedules/new") { request, _ in
            try await withSession(request) { signed in
                guard signed.may(.createSchedule) else {
                    return refusal(.forbidden, "Your role (\(signed.account.role.rawValue)) cannot create schedules.", signed)
                }
                return try await PlanBuilderScreen(services: services).blank(signed: signed)
            }
        }
        console.post("schedules/preview") { request, _ in
            try await withForm(request, permission: ConsoleAction.createSchedule.permission) { signed, form in
                try await PlanBuilderScreen(services: services).preview(form: form, signed: signed)
            }
        }
        console.post("schedules/create") { request, _ in
            try await withForm(request, permission: ConsoleAction.createSchedule.permission) { signed, form in
                try await PlanBuilderScreen(services: services).create(form: form, signed: signed)
            }
        }
        console.get("schedules/:merchant/:id") { request, context in
            try await withSession(request) { signed in
                try await SchedulesScreen(services: services).detail(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", signed: signed)
            }
        }
        for action in ConsoleAction.lifecycle {
            console.post(RouterPath("schedules/:merchant/:id/\(action.rawValue)")) { request, context in
                try await withForm(request, permission: action.permission) { signed, form in
                    try await SchedulesScreen(services: services).act(
                        action.rawValue, merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", form: form,
                        signed: signed)
                }
            }
        }
        console.post("schedules/:merchant/:id/change") { request, context in
            try await withForm(request, permission: ConsoleAction.changeSchedule.permission) { signed, form in
                try await ScheduleChangeScreen(services: services).change(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", form: form, signed: signed)
            }
        }
        console.post("schedules/:merchant/:id/steps/:step/skip") { request, context in
            try await withForm(request, permission: ConsoleAction.skipStep.permission) { signed, form in
                try await SchedulesScreen(services: services).skip(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "",
                    stepID: context.parameters.get("step") ?? "", form: form, signed: signed)
            }
        }
        console.get("review-queue") { request, _ in
            try await withSession(request) { signed in try await ReviewQueueScreen(services: services).list(query: Self.query(request), signed: signed) }
        }
        console.post("review-queue/resolve") { request, _ in
            try await withForm(request, permission: .support) { signed, form in try await ReviewQueueScreen(services: services).resolve(form: form, signed: signed) }
        }
    }
}
