import type { Migration } from 'kysely';
import * as createWebStore from './2026_11_22_0500_create_web_store.js';
import * as createCountry from './2026_11_22_0510_create_country.js';
import * as createJob from './2026_11_22_0600_create_job.js';
import * as createAccounts from './2026_11_22_0610_create_accounts.js';
import * as createSocialLogin from './2026_11_22_0700_create_social_login.js';
import * as createCatalogue from './2026_11_22_0800_create_catalogue.js';
import * as createExportUser from './2026_11_22_0900_create_export_user.js';
import * as createSearchIndex from './2026_11_22_1000_create_search_index.js';
import * as createImportLock from './2026_11_22_1100_create_import_lock.js';
import * as addClientAccountStatus from './2026_11_23_0900_add_client_account_status.js';
import * as bindSocialFlows from './2026_11_23_1000_bind_social_flows.js';
import * as createBasket from './2026_11_23_1100_create_basket.js';
import * as createTestGatewayPayment from './2026_11_24_0110_create_test_gateway_payment.js';
import * as createOrders from './2026_11_24_0120_create_orders.js';
import * as createJobLease from './2026_11_24_0130_create_job_lease.js';
import * as addPaymentOrderReference from './2026_11_24_0150_add_payment_order_reference.js';
import * as createProfile from './2026_11_24_0200_create_profile.js';
import * as createWishlist from './2026_11_24_0210_create_wishlist.js';
import * as createNewsletter from './2026_11_24_0220_create_newsletter.js';
import * as createCompanies from './2026_11_24_0230_create_companies.js';
import * as createDownloads from './2026_11_24_0240_create_downloads.js';
import * as indexGuestOrderEmail from './2026_11_24_0500_index_guest_order_email.js';
import * as createContentPages from './2026_11_24_1000_create_content_pages.js';
import * as createBlog from './2026_11_24_1100_create_blog.js';
import * as createShopScheduleAndRedirect from './2026_11_24_1101_create_shop_schedule_and_redirect.js';
import * as createStoreContact from './2026_11_24_1200_create_store_contact.js';
import * as createBannerCtr from './2026_11_24_1201_create_banner_ctr.js';
import * as createSitemapSection from './2026_11_24_1202_create_sitemap_section.js';
import * as createGiftCards from './2026_11_24_1300_create_gift_cards.js';
import * as createVirtualGiftCards from './2026_11_24_1301_create_virtual_gift_cards.js';
import * as createSubscriptions from './2026_11_24_1400_create_subscriptions.js';
import * as addTestGatewayRequestToken from './2026_11_24_1401_add_test_gateway_request_token.js';
import * as createSubscriptionTakes from './2026_11_24_1500_create_subscription_takes.js';
import * as createDownloadTakeCount from './2026_11_24_1501_create_download_take_count.js';
import * as addOrderPaymentRefundDue from './2026_11_24_1510_add_order_payment_refund_due.js';
import * as createIntegrationEvents from './2026_11_24_1530_create_integration_events.js';
import * as createSuppliers from './2026_11_24_1531_create_suppliers.js';
import * as createCategoryListing from './2026_11_24_1550_create_category_listing.js';
import * as createProductDocument from './2026_11_24_1600_create_product_document.js';
import * as createCatalogueReferenceVersion from './2026_11_24_1640_create_catalogue_reference_version.js';
import * as indexNamePrefixAndPublisherNewest from './2026_11_24_1641_index_name_prefix_and_publisher_newest.js';
import * as createCategorySales from './2026_11_24_1642_create_category_sales.js';
import * as coverWishlistList from './2026_11_24_1660_cover_wishlist_list.js';
import * as watchCataloguePrices from './2026_11_27_1300_watch_catalogue_prices.js';
import * as indexSearchRelevance from './2026_11_27_1700_index_search_relevance.js';
import * as indexSearchHidden from './2026_11_27_1710_index_search_hidden.js';
import * as deferTriggersInBulkWrites from './2026_11_27_2100_defer_triggers_in_bulk_writes.js';
import * as createCompanyInvitation from './2026_11_28_0000_create_company_invitation.js';
import * as addAccessTokenSignedInAt from './2026_11_28_0300_add_access_token_signed_in_at.js';
import * as indexGrowingTables from './2026_11_28_0400_index_growing_tables.js';
import * as indexHeldLists from './2026_11_28_0500_index_held_lists.js';
import * as createDownloadItem from './2026_11_28_0600_create_download_item.js';
import * as createBoughtProduct from './2026_11_28_0610_create_bought_product.js';
import * as addCommentSubmissionHash from './2026_11_28_0620_add_comment_submission_hash.js';
import * as indexJobEmails from './2026_11_29_0400_index_job_emails.js';
import * as uniqueLiveClientAccounts from './2026_11_29_0500_unique_live_client_accounts.js';
import * as addSubscriptionCardRedirect from './2026_11_29_0800_add_subscription_card_redirect.js';
import * as createUnconfirmedLoginEmail from './2026_11_29_0840_create_unconfirmed_login_email.js';
import * as indexSweptReads from './2026_11_29_0860_index_swept_reads.js';
import * as addDownloadLinkBytes from './2026_11_30_0400_add_download_link_bytes.js';
import * as batchNewFileItems from './2026_11_30_0410_batch_new_file_items.js';
import * as addBackInStockConfirmation from './2026_11_30_0500_add_back_in_stock_confirmation.js';
import * as addSocialIdentityEmailVerified from './2026_11_30_0600_add_social_identity_email_verified.js';
import * as addSubscriptionChargeFromPlan from './2026_11_30_0650_add_subscription_charge_from_plan.js';
import * as batchRemovedFileItems from './2026_11_30_0700_batch_removed_file_items.js';
import * as queueRemovedFileItems from './2026_11_30_0850_queue_removed_file_items.js';
import * as addSubscriptionChargePendingTold from './2026_11_30_0950_add_subscription_charge_pending_told.js';
import * as removeDeletedFileBytes from './2026_11_30_1050_remove_deleted_file_bytes.js';
import * as addBasketGiftCardSeenBalance from './2026_11_30_1150_add_basket_gift_card_seen_balance.js';
import * as addSubscriptionChargeOutcomeTold from './2026_11_30_1400_add_subscription_charge_outcome_told.js';
import * as indexOperatorLists from './2026_11_30_1500_index_operator_lists.js';
import * as createOrderRefund from './2026_11_30_1550_create_order_refund.js';
import * as addSubscriptionChargeCheckedAt from './2026_11_30_1900_add_subscription_charge_checked_at.js';
import * as closeErasedWholesaleRequests from './2026_11_30_2030_close_erased_wholesale_requests.js';
import * as keyBackInStockByAccount from './2026_12_01_0500_key_back_in_stock_by_account.js';
import * as createInvitationToken from './2026_12_01_0610_create_invitation_token.js';
import * as moveBackInStockToLoginEmail from './2026_12_01_0900_move_back_in_stock_to_login_email.js';
import * as revokeGiftCardEntitlements from './2026_12_01_0900_revoke_gift_card_entitlements.js';
import * as disableWebhookUrlsWithCredentials from './2026_12_01_1010_disable_webhook_urls_with_credentials.js';
import * as indexOrdersByStatusAndCheckout from './2026_12_01_1200_index_orders_by_status_and_checkout.js';
import * as rewordWebhookCredentialsReason from './2026_12_01_1400_reword_webhook_credentials_reason.js';
import * as addSubscriptionChargeMismatch from './2026_12_01_1500_add_subscription_charge_mismatch.js';
import * as addTestGatewayCardToken from './2026_12_01_1600_add_test_gateway_card_token.js';
import * as addSubscriptionChargeRefundRefusal from './2026_12_01_1700_add_subscription_charge_refund_refusal.js';
import * as addGiftCardSenderName from './2026_12_02_0100_add_gift_card_sender_name.js';
import * as addPersonSortName from './2026_12_02_0130_add_person_sort_name.js';
import * as filePersonNotesAfterSurname from './2026_12_02_0300_file_person_notes_after_surname.js';
import * as filePersonNotesRunAfterSurname from './2026_12_02_0600_file_person_notes_run_after_surname.js';
import * as addSearchProductTitleKey from './2026_12_02_0700_add_search_product_title_key.js';
import * as addWishlistOffers from './2026_12_02_0800_add_wishlist_offers.js';
import * as addBasketReminders from './2026_12_02_0900_add_basket_reminders.js';
import * as addGiftCardUndeliverable from './2026_12_02_1000_add_gift_card_undeliverable.js';
import * as createRefusedMailAddress from './2026_12_02_1900_create_refused_mail_address.js';
import * as createOrderPickup from './2026_12_03_0300_create_order_pickup.js';
import * as createOrderFeedbackRequest from './2026_12_03_0400_create_order_feedback_request.js';
import * as addShopListed from './2026_12_03_0500_add_shop_listed.js';
import * as indexWholesaleRequestAccount from './2026_12_03_0600_index_wholesale_request_account.js';
import * as addRefusedMailAddressLate from './2026_12_03_0700_add_refused_mail_address_late.js';
import * as addOrderPaymentRefundRefused from './2026_12_03_1245_add_order_payment_refund_refused.js';
import * as indexOrderPaymentRefundRefused from './2026_12_03_1500_index_order_payment_refund_refused.js';
import * as indexContentWindows from './2026_12_04_1010_index_content_windows.js';
import * as addGiftCardEntryExtendedTo from './2026_12_04_1013_add_gift_card_entry_extended_to.js';
import * as indexPriceStreams from './2026_12_05_1330_index_price_streams.js';
import * as widenPaymentCallbackState from './2026_12_05_1340_widen_payment_callback_state.js';
import * as createOrderRevivalRefusal from './2026_12_05_1345_create_order_revival_refusal.js';
import * as widenSubscriptionCardToken from './2026_12_05_1411_widen_subscription_card_token.js';
import * as indexTestGatewayOrderReference from './2026_12_05_1435_index_test_gateway_order_reference.js';
import * as addSubscriptionChargeRefundTriedAt from './2026_12_06_1030_add_subscription_charge_refund_tried_at.js';
import * as addSubscriptionChargeCardId from './2026_12_08_1021_add_subscription_charge_card_id.js';
import * as indexConversionJobUser from './2026_12_08_1050_index_conversion_job_user.js';
import * as createStoreListing from './2026_12_09_1010_create_store_listing.js';
import * as addSubscriptionChargeRefundedCents from './2026_12_09_1020_add_subscription_charge_refunded_cents.js';
import * as upperCaseRedirectEscapes from './2026_12_09_1030_upper_case_redirect_escapes.js';
import * as indexProductUpdated from './2026_12_09_1041_index_product_updated.js';
import * as addClientAccountUpdated from './2026_12_09_1042_add_client_account_updated.js';
import * as addSalesHistoryUpdated from './2026_12_09_1043_add_sales_history_updated.js';
import * as createOrderGiftDownload from './2026_12_09_1050_create_order_gift_download.js';
import * as createCategoryListingDelta from './2026_12_10_1010_category_listing_delta.js';
import * as addOrderGiftDownloadExpires from './2026_12_10_1040_add_order_gift_download_expires.js';
import * as newsletterFlagSubscriptions from './2026_12_10_1060_newsletter_flag_subscriptions.js';
import * as categoryListingLockOrder from './2026_12_10_1110_category_listing_lock_order.js';
import * as addMarketingConsentEventStore from './2026_12_11_1500_add_marketing_consent_event_store.js';
import * as createSubscriptionChargeRefund from './2026_12_11_1200_create_subscription_charge_refund.js';
import * as stampOldReleaseUpdated from './2026_12_11_1600_stamp_old_release_updated.js';
import * as stampCategoryListingDelta from './2026_12_11_1610_stamp_category_listing_delta.js';
import * as bookOldReleaseChargeWrites from './2026_12_11_2200_book_old_release_charge_writes.js';
import * as bumpPriceVersionAtCommit from './2026_12_12_1110_bump_price_version_at_commit.js';
import * as indexJobStatusType from './2026_12_12_1600_index_job_status_type.js';
import * as campaignPricesLeaveDocuments from './2026_12_13_1500_campaign_prices_leave_documents.js';
import * as referenceVersionNeverReused from './2026_12_13_1600_reference_version_never_reused.js';

// Listed explicitly (not read from the folder) so the same list runs under tsx and from dist/.
// Names sort in the order they must run; never rename or edit one that has shipped.
export const migrations: Record<string, Migration> = {
  '2026_11_22_0500_create_web_store': createWebStore,
  '2026_11_22_0510_create_country': createCountry,
  '2026_11_22_0600_create_job': createJob,
  '2026_11_22_0610_create_accounts': createAccounts,
  '2026_11_22_0700_create_social_login': createSocialLogin,
  '2026_11_22_0800_create_catalogue': createCatalogue,
  '2026_11_22_0900_create_export_user': createExportUser,
  '2026_11_22_1000_create_search_index': createSearchIndex,
  '2026_11_22_1100_create_import_lock': createImportLock,
  '2026_11_23_0900_add_client_account_status': addClientAccountStatus,
  '2026_11_23_1000_bind_social_flows': bindSocialFlows,
  '2026_11_23_1100_create_basket': createBasket,
  '2026_11_24_0110_create_test_gateway_payment': createTestGatewayPayment,
  '2026_11_24_0120_create_orders': createOrders,
  '2026_11_24_0130_create_job_lease': createJobLease,
  '2026_11_24_0150_add_payment_order_reference': addPaymentOrderReference,
  '2026_11_24_0200_create_profile': createProfile,
  '2026_11_24_0210_create_wishlist': createWishlist,
  '2026_11_24_0220_create_newsletter': createNewsletter,
  '2026_11_24_0230_create_companies': createCompanies,
  '2026_11_24_0240_create_downloads': createDownloads,
  '2026_11_24_0500_index_guest_order_email': indexGuestOrderEmail,
  '2026_11_24_1000_create_content_pages': createContentPages,
  '2026_11_24_1100_create_blog': createBlog,
  '2026_11_24_1101_create_shop_schedule_and_redirect': createShopScheduleAndRedirect,
  '2026_11_24_1200_create_store_contact': createStoreContact,
  '2026_11_24_1201_create_banner_ctr': createBannerCtr,
  '2026_11_24_1202_create_sitemap_section': createSitemapSection,
  '2026_11_24_1300_create_gift_cards': createGiftCards,
  '2026_11_24_1301_create_virtual_gift_cards': createVirtualGiftCards,
  '2026_11_24_1400_create_subscriptions': createSubscriptions,
  '2026_11_24_1401_add_test_gateway_request_token': addTestGatewayRequestToken,
  '2026_11_24_1500_create_subscription_takes': createSubscriptionTakes,
  '2026_11_24_1501_create_download_take_count': createDownloadTakeCount,
  '2026_11_24_1510_add_order_payment_refund_due': addOrderPaymentRefundDue,
  '2026_11_24_1530_create_integration_events': createIntegrationEvents,
  '2026_11_24_1531_create_suppliers': createSuppliers,
  '2026_11_24_1550_create_category_listing': createCategoryListing,
  '2026_11_24_1600_create_product_document': createProductDocument,
  '2026_11_24_1640_create_catalogue_reference_version': createCatalogueReferenceVersion,
  '2026_11_24_1641_index_name_prefix_and_publisher_newest': indexNamePrefixAndPublisherNewest,
  '2026_11_24_1642_create_category_sales': createCategorySales,
  '2026_11_24_1660_cover_wishlist_list': coverWishlistList,
  '2026_11_27_1300_watch_catalogue_prices': watchCataloguePrices,
  '2026_11_27_1700_index_search_relevance': indexSearchRelevance,
  '2026_11_27_1710_index_search_hidden': indexSearchHidden,
  '2026_11_27_2100_defer_triggers_in_bulk_writes': deferTriggersInBulkWrites,
  '2026_11_28_0000_create_company_invitation': createCompanyInvitation,
  '2026_11_28_0300_add_access_token_signed_in_at': addAccessTokenSignedInAt,
  '2026_11_28_0400_index_growing_tables': indexGrowingTables,
  '2026_11_28_0500_index_held_lists': indexHeldLists,
  '2026_11_28_0600_create_download_item': createDownloadItem,
  '2026_11_28_0610_create_bought_product': createBoughtProduct,
  '2026_11_28_0620_add_comment_submission_hash': addCommentSubmissionHash,
  '2026_11_29_0400_index_job_emails': indexJobEmails,
  '2026_11_29_0500_unique_live_client_accounts': uniqueLiveClientAccounts,
  '2026_11_29_0800_add_subscription_card_redirect': addSubscriptionCardRedirect,
  '2026_11_29_0840_create_unconfirmed_login_email': createUnconfirmedLoginEmail,
  '2026_11_29_0860_index_swept_reads': indexSweptReads,
  '2026_11_30_0400_add_download_link_bytes': addDownloadLinkBytes,
  '2026_11_30_0410_batch_new_file_items': batchNewFileItems,
  '2026_11_30_0500_add_back_in_stock_confirmation': addBackInStockConfirmation,
  '2026_11_30_0600_add_social_identity_email_verified': addSocialIdentityEmailVerified,
  '2026_11_30_0650_add_subscription_charge_from_plan': addSubscriptionChargeFromPlan,
  '2026_11_30_0700_batch_removed_file_items': batchRemovedFileItems,
  '2026_11_30_0850_queue_removed_file_items': queueRemovedFileItems,
  '2026_11_30_0950_add_subscription_charge_pending_told': addSubscriptionChargePendingTold,
  '2026_11_30_1050_remove_deleted_file_bytes': removeDeletedFileBytes,
  '2026_11_30_1150_add_basket_gift_card_seen_balance': addBasketGiftCardSeenBalance,
  '2026_11_30_1400_add_subscription_charge_outcome_told': addSubscriptionChargeOutcomeTold,
  '2026_11_30_1500_index_operator_lists': indexOperatorLists,
  '2026_11_30_1550_create_order_refund': createOrderRefund,
  '2026_11_30_1900_add_subscription_charge_checked_at': addSubscriptionChargeCheckedAt,
  '2026_11_30_2030_close_erased_wholesale_requests': closeErasedWholesaleRequests,
  '2026_12_01_0500_key_back_in_stock_by_account': keyBackInStockByAccount,
  '2026_12_01_0610_create_invitation_token': createInvitationToken,
  '2026_12_01_0900_move_back_in_stock_to_login_email': moveBackInStockToLoginEmail,
  '2026_12_01_0900_revoke_gift_card_entitlements': revokeGiftCardEntitlements,
  '2026_12_01_1010_disable_webhook_urls_with_credentials': disableWebhookUrlsWithCredentials,
  '2026_12_01_1200_index_orders_by_status_and_checkout': indexOrdersByStatusAndCheckout,
  '2026_12_01_1400_reword_webhook_credentials_reason': rewordWebhookCredentialsReason,
  '2026_12_01_1500_add_subscription_charge_mismatch': addSubscriptionChargeMismatch,
  '2026_12_01_1600_add_test_gateway_card_token': addTestGatewayCardToken,
  '2026_12_01_1700_add_subscription_charge_refund_refusal': addSubscriptionChargeRefundRefusal,
  '2026_12_02_0100_add_gift_card_sender_name': addGiftCardSenderName,
  '2026_12_02_0130_add_person_sort_name': addPersonSortName,
  '2026_12_02_0300_file_person_notes_after_surname': filePersonNotesAfterSurname,
  '2026_12_02_0600_file_person_notes_run_after_surname': filePersonNotesRunAfterSurname,
  '2026_12_02_0700_add_search_product_title_key': addSearchProductTitleKey,
  '2026_12_02_0800_add_wishlist_offers': addWishlistOffers,
  '2026_12_02_0900_add_basket_reminders': addBasketReminders,
  '2026_12_02_1000_add_gift_card_undeliverable': addGiftCardUndeliverable,
  '2026_12_02_1900_create_refused_mail_address': createRefusedMailAddress,
  '2026_12_03_0300_create_order_pickup': createOrderPickup,
  '2026_12_03_0400_create_order_feedback_request': createOrderFeedbackRequest,
  '2026_12_03_0500_add_shop_listed': addShopListed,
  '2026_12_03_0600_index_wholesale_request_account': indexWholesaleRequestAccount,
  '2026_12_03_0700_add_refused_mail_address_late': addRefusedMailAddressLate,
  '2026_12_03_1245_add_order_payment_refund_refused': addOrderPaymentRefundRefused,
  '2026_12_03_1500_index_order_payment_refund_refused': indexOrderPaymentRefundRefused,
  '2026_12_04_1010_index_content_windows': indexContentWindows,
  '2026_12_04_1013_add_gift_card_entry_extended_to': addGiftCardEntryExtendedTo,
  '2026_12_05_1330_index_price_streams': indexPriceStreams,
  '2026_12_05_1340_widen_payment_callback_state': widenPaymentCallbackState,
  '2026_12_05_1345_create_order_revival_refusal': createOrderRevivalRefusal,
  '2026_12_05_1411_widen_subscription_card_token': widenSubscriptionCardToken,
  '2026_12_05_1435_index_test_gateway_order_reference': indexTestGatewayOrderReference,
  '2026_12_06_1030_add_subscription_charge_refund_tried_at': addSubscriptionChargeRefundTriedAt,
  '2026_12_08_1021_add_subscription_charge_card_id': addSubscriptionChargeCardId,
  '2026_12_08_1050_index_conversion_job_user': indexConversionJobUser,
  '2026_12_09_1010_create_store_listing': createStoreListing,
  '2026_12_09_1020_add_subscription_charge_refunded_cents': addSubscriptionChargeRefundedCents,
  '2026_12_09_1030_upper_case_redirect_escapes': upperCaseRedirectEscapes,
  '2026_12_09_1041_index_product_updated': indexProductUpdated,
  '2026_12_09_1042_add_client_account_updated': addClientAccountUpdated,
  '2026_12_09_1043_add_sales_history_updated': addSalesHistoryUpdated,
  '2026_12_09_1050_create_order_gift_download': createOrderGiftDownload,
  '2026_12_10_1010_category_listing_delta': createCategoryListingDelta,
  '2026_12_10_1040_add_order_gift_download_expires': addOrderGiftDownloadExpires,
  '2026_12_10_1060_newsletter_flag_subscriptions': newsletterFlagSubscriptions,
  '2026_12_10_1110_category_listing_lock_order': categoryListingLockOrder,
  '2026_12_11_1200_create_subscription_charge_refund': createSubscriptionChargeRefund,
  '2026_12_11_1500_add_marketing_consent_event_store': addMarketingConsentEventStore,
  '2026_12_11_1600_stamp_old_release_updated': stampOldReleaseUpdated,
  '2026_12_11_1610_stamp_category_listing_delta': stampCategoryListingDelta,
  '2026_12_11_2200_book_old_release_charge_writes': bookOldReleaseChargeWrites,
  '2026_12_12_1110_bump_price_version_at_commit': bumpPriceVersionAtCommit,
  '2026_12_12_1600_index_job_status_type': indexJobStatusType,
  '2026_12_13_1500_campaign_prices_leave_documents': campaignPricesLeaveDocuments,
  '2026_12_13_1600_reference_version_never_reused': referenceVersionNeverReused,
};
