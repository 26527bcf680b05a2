extension PostgresSchema {
    /// A card's schedules, a page at a time (`ScheduleStore.schedules(secureCardReference:)`, the
    /// card page's list and `GET /v1/schedules?secureCardReference=`): the merchant, the card and the
    /// paging order in one index, so the list reads only that card's rows and needs no sort.
    static let schedulesByCard = PostgresMigration(id: 21, name: "schedules by merchant and card", statements: [
        "CREATE INDEX schedules_by_merchant_card ON schedules (merchant_id, secure_card_id, seq)"
    ])
}
